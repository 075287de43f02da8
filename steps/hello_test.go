package steps

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rdmatour/rdmatour/verbs"
)

func TestHelloRoundTrip(t *testing.T) {
	cases := []Hello{
		HelloFor(TourWrite, ""),
		HelloFor(TourWrite, "no-recv"),
		HelloFor(TourRead, ""),
		HelloFor(TourAtomic, "post-before-connect"),
		HelloFor(TourUD, strings.Repeat("a", MaxHelloLesson)),
	}
	for _, h := range cases {
		b, err := h.Marshal()
		if err != nil {
			t.Fatalf("%+v: %v", h, err)
		}
		if len(b) > verbs.MaxConnectPrivateData {
			t.Errorf("%+v: %d bytes do not fit a REQ's %d", h, len(b), verbs.MaxConnectPrivateData)
		}
		// Received private data is zero-padded to the CM's full size.
		padded := append(b, make([]byte, verbs.MaxConnectPrivateData-len(b))...)
		got, found, err := ParseHello(padded)
		if err != nil || !found || got != h {
			t.Errorf("round trip of %+v: got %+v found=%v err=%v", h, got, found, err)
		}
	}
}

// Every lesson's name fits a hello, so Marshal never fails in a tour.
func TestHelloFitsEveryLesson(t *testing.T) {
	for _, l := range Lessons() {
		if _, err := HelloFor(TourWrite, l.Name).Marshal(); err != nil {
			t.Errorf("lesson %s: %v", l.Name, err)
		}
	}
}

func TestHelloMarshalRefuses(t *testing.T) {
	if _, err := HelloFor(TourWrite, strings.Repeat("a", MaxHelloLesson+1)).Marshal(); !errors.Is(err, errHelloTooLong) {
		t.Errorf("too long: %v", err)
	}
	if _, err := HelloFor(TourWrite, "No Recv").Marshal(); err == nil {
		t.Error("a name with capitals and a space was encoded")
	}
}

func TestParseHello(t *testing.T) {
	hdr := func(version, tour, n byte, name string) []byte {
		return append([]byte{'r', 'd', 'm', 'T', version, tour, n}, name...)
	}
	cases := []struct {
		name    string
		in      []byte
		want    Hello
		found   bool
		wantErr string
	}{
		{name: "empty (seed client sends no REQ private data)", in: nil},
		{name: "REQ zero padding", in: make([]byte, 56)},
		{name: "other bytes", in: []byte("hello world, not ours")},
		{name: "magic alone", in: []byte("rdmT"), found: true, wantErr: "header"},
		{name: "plain write tour", in: hdr(1, 0, 0, ""), want: Hello{Version: 1}, found: true},
		{name: "lesson", in: hdr(1, 0, 7, "no-recv"), want: Hello{Version: 1, Lesson: "no-recv"}, found: true},
		{name: "ud tour", in: hdr(1, 3, 0, ""), want: Hello{Version: 1, Tour: TourUD}, found: true},
		{name: "newer version with appended fields", in: append(hdr(2, 1, 3, "abc"), 0xff, 0xee), want: Hello{Version: 2, Tour: TourRead, Lesson: "abc"}, found: true},
		{name: "version 0", in: hdr(0, 0, 0, ""), found: true, wantErr: "version 0"},
		{name: "unknown tour", in: hdr(1, 9, 0, ""), found: true, wantErr: "unknown tour kind 9"},
		{name: "name runs past the data", in: hdr(1, 0, 20, "short"), found: true, wantErr: "lesson name of 20 bytes"},
		{name: "name too long", in: hdr(1, 0, 200, strings.Repeat("a", 200)), found: true, wantErr: "lesson name of 200 bytes"},
		{name: "escape in name", in: hdr(1, 0, 4, "a\x1b[m"), found: true, wantErr: `a\e[m`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, found, err := ParseHello(tc.in)
			if found != tc.found {
				t.Errorf("found = %v, want %v", found, tc.found)
			}
			if tc.wantErr == "" {
				if err != nil || got != tc.want {
					t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			var he *HelloError
			if !errors.As(err, &he) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want a HelloError containing %q", err, tc.wantErr)
			}
		})
	}
}

// The server's accept private data is remote_info then the hello; the
// seed's client reads only the first 32 bytes, rdmatour's reads both.
func TestAcceptHelloAfterRemoteInfo(t *testing.T) {
	info := RemoteInfo{Addr: 0x7f0000001000, RKey: 0x1234, Size: BufSize}
	h, _ := HelloFor(TourWrite, "bad-rkey").Marshal()
	p := append(info.Marshal(), h...)
	p = append(p, make([]byte, verbs.MaxAcceptPrivateData-len(p))...)
	if got, err := ParseRemoteInfo(p); err != nil || got != info {
		t.Fatalf("remote_info: %+v %v", got, err)
	}
	got, found, err := ParseAcceptHello(p)
	if err != nil || !found || got.Lesson != "bad-rkey" {
		t.Errorf("hello: %+v found=%v err=%v", got, found, err)
	}
	// A seed server: remote_info and zero padding.
	seed := append(info.Marshal(), make([]byte, verbs.MaxAcceptPrivateData-RemoteInfoSize)...)
	if _, found, err := ParseAcceptHello(seed); found || err != nil {
		t.Errorf("seed server's padding read as a hello: found=%v err=%v", found, err)
	}
	if _, found, err := ParseAcceptHello(info.Marshal()); found || err != nil {
		t.Errorf("exactly remote_info: found=%v err=%v", found, err)
	}
}

func TestParseTourKind(t *testing.T) {
	for _, s := range []string{"", "write", "read", "atomic", "ud"} {
		k, err := ParseTourKind(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
		}
		if s != "" && k.String() != s {
			t.Errorf("%q round trips as %q", s, k)
		}
	}
	if _, err := ParseTourKind("rc"); err == nil || !strings.Contains(err.Error(), "write, read, atomic, ud") {
		t.Errorf("unknown kind: %v", err)
	}
}

// FuzzParseHello: any bytes from a peer decode without a panic, a decoded
// hello is printable and re-encodes to the bytes it came from.
func FuzzParseHello(f *testing.F) {
	f.Add([]byte(nil))
	f.Add(make([]byte, 56))
	for _, h := range []Hello{HelloFor(TourWrite, "no-recv"), HelloFor(TourUD, "")} {
		b, _ := h.Marshal()
		f.Add(b)
	}
	f.Add([]byte("rdmT\x01\x00\xff"))
	f.Fuzz(func(t *testing.T, p []byte) {
		h, found, err := ParseHello(p)
		if !found || err != nil {
			if h != (Hello{}) {
				t.Fatalf("no hello but %+v", h)
			}
			return
		}
		if !utf8.ValidString(h.Lesson) || !validLessonName(h.Lesson) {
			t.Fatalf("decoded an unsafe name %q", h.Lesson)
		}
		b, err := h.Marshal()
		if err != nil {
			t.Fatalf("decoded %+v does not re-encode: %v", h, err)
		}
		if !bytes.Equal(b[7:], p[7:7+len(h.Lesson)]) || !bytes.Equal(b[:4], p[:4]) || b[5] != p[5] {
			t.Fatalf("re-encoding % x differs from % x", b, p)
		}
	})
}
