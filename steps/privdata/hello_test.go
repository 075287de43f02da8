package privdata_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

func hello(tour uint8, lesson string) privdata.Hello {
	return privdata.Hello{Version: privdata.HelloVersion, Tour: tour, Lesson: lesson}
}

func TestHelloRoundTrip(t *testing.T) {
	cases := []privdata.Hello{
		hello(0, ""),
		hello(0, "no-recv"),
		hello(1, ""),
		hello(2, "post-before-connect"),
		hello(3, strings.Repeat("a", privdata.MaxHelloLesson)),
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
		got, found, err := privdata.ParseHello(padded)
		if err != nil || !found || got != h {
			t.Errorf("round trip of %+v: got %+v found=%v err=%v", h, got, found, err)
		}
	}
}

func TestHelloMarshalRefuses(t *testing.T) {
	if _, err := hello(0, strings.Repeat("a", privdata.MaxHelloLesson+1)).Marshal(); !errors.Is(err, privdata.ErrLessonTooLong) {
		t.Errorf("too long: %v", err)
	}
	if _, err := hello(0, "No Recv").Marshal(); err == nil {
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
		want    privdata.Hello
		found   bool
		wantErr string
	}{
		{name: "empty (seed client sends no REQ private data)", in: nil},
		{name: "REQ zero padding", in: make([]byte, 56)},
		{name: "other bytes", in: []byte("hello world, not ours")},
		{name: "magic alone", in: []byte("rdmT"), found: true, wantErr: "header"},
		{name: "plain write tour", in: hdr(1, 0, 0, ""), want: privdata.Hello{Version: 1}, found: true},
		{name: "lesson", in: hdr(1, 0, 7, "no-recv"), want: privdata.Hello{Version: 1, Lesson: "no-recv"}, found: true},
		{name: "ud tour", in: hdr(1, 3, 0, ""), want: privdata.Hello{Version: 1, Tour: 3}, found: true},
		{name: "any tour byte: steps judges it", in: hdr(1, 9, 0, ""), want: privdata.Hello{Version: 1, Tour: 9}, found: true},
		{name: "newer version with appended fields", in: append(hdr(2, 1, 3, "abc"), 0xff, 0xee), want: privdata.Hello{Version: 2, Tour: 1, Lesson: "abc"}, found: true},
		{name: "version 0", in: hdr(0, 0, 0, ""), found: true, wantErr: "version 0"},
		{name: "name runs past the data", in: hdr(1, 0, 20, "short"), found: true, wantErr: "lesson name of 20 bytes"},
		{name: "name too long", in: hdr(1, 0, 200, strings.Repeat("a", 200)), found: true, wantErr: "lesson name of 200 bytes"},
		{name: "escape in name", in: hdr(1, 0, 4, "a\x1b[m"), found: true, wantErr: `a\e[m`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, found, err := privdata.ParseHello(tc.in)
			if found != tc.found {
				t.Errorf("found = %v, want %v", found, tc.found)
			}
			if tc.wantErr == "" {
				if err != nil || got != tc.want {
					t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			var he *privdata.HelloError
			if !errors.As(err, &he) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want a HelloError containing %q", err, tc.wantErr)
			}
		})
	}
}

// The server's accept private data is remote_info then the hello; the
// seed's client reads only the first 32 bytes, rdmatour's reads both.
func TestAcceptHelloAfterRemoteInfo(t *testing.T) {
	info := privdata.RemoteInfo{Addr: 0x7f0000001000, RKey: 0x1234, Size: 4096}
	h, _ := hello(0, "bad-rkey").Marshal()
	p := append(info.Marshal(), h...)
	p = append(p, make([]byte, verbs.MaxAcceptPrivateData-len(p))...)
	if got, err := privdata.ParseRemoteInfo(p); err != nil || got != info {
		t.Fatalf("remote_info: %+v %v", got, err)
	}
	got, found, err := privdata.ParseAcceptHello(p)
	if err != nil || !found || got.Lesson != "bad-rkey" {
		t.Errorf("hello: %+v found=%v err=%v", got, found, err)
	}
	// A seed server: remote_info and zero padding.
	seed := append(info.Marshal(), make([]byte, verbs.MaxAcceptPrivateData-privdata.RemoteInfoSize)...)
	if _, found, err := privdata.ParseAcceptHello(seed); found || err != nil {
		t.Errorf("seed server's padding read as a hello: found=%v err=%v", found, err)
	}
	if _, found, err := privdata.ParseAcceptHello(info.Marshal()); found || err != nil {
		t.Errorf("exactly remote_info: found=%v err=%v", found, err)
	}
}

// FuzzParseHello: any bytes from a peer decode without a panic, a decoded
// hello is printable and re-encodes to the bytes it came from (Marshal
// refuses a name that is not [a-z0-9-]).
func FuzzParseHello(f *testing.F) {
	f.Add([]byte(nil))
	f.Add(make([]byte, 56))
	for _, h := range []privdata.Hello{hello(0, "no-recv"), hello(3, "")} {
		b, _ := h.Marshal()
		f.Add(b)
	}
	f.Add([]byte("rdmT\x01\x00\xff"))
	f.Fuzz(func(t *testing.T, p []byte) {
		h, found, err := privdata.ParseHello(p)
		if !found || err != nil {
			if h != (privdata.Hello{}) {
				t.Fatalf("no hello but %+v", h)
			}
			return
		}
		if !utf8.ValidString(h.Lesson) {
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
