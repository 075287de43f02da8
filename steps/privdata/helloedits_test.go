package privdata_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

// The edits a side announces cross in its hello: as many as fit, the rest
// counted; a reader finds them behind the lesson name, also in the REP
// where the hello follows remote_info, and zero padding reads as none.
func TestHelloEditsRoundTrip(t *testing.T) {
	access := "reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE"
	long := "post-write.message=" + strings.Repeat("x", 60)
	cases := []struct {
		name        string
		lesson      string
		edits       []string
		room        int
		wantList    []string
		wantOmitted int
	}{
		{"none", "", nil, verbs.MaxConnectPrivateData, nil, 0},
		{"one in a REQ", "", []string{"connect.initiator_depth=0"}, verbs.MaxConnectPrivateData, []string{"connect.initiator_depth=0"}, 0},
		{"too long for a REQ", "", []string{long}, verbs.MaxConnectPrivateData, nil, 1},
		{"41 bytes fit a REQ", "", []string{access}, verbs.MaxConnectPrivateData, []string{access}, 0},
		{"REP room", "bad-rkey", []string{access, long, "accept.rnr_retry_count=0"}, verbs.MaxAcceptPrivateData - privdata.RemoteInfoSize,
			[]string{access, long, "accept.rnr_retry_count=0"}, 0},
		{"the one that fits goes, the other is counted", "", []string{long, "cqe=1"}, 40, []string{"cqe=1"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := hello(0, c.lesson).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			b := privdata.AppendHelloEdits(h, c.edits, c.room)
			if len(b) > c.room {
				t.Fatalf("%d bytes in a room of %d", len(b), c.room)
			}
			padded := append(b, make([]byte, c.room-len(b))...)
			if got, found, err := privdata.ParseHello(padded); err != nil || !found || got != hello(0, c.lesson) {
				t.Errorf("the hello itself: %+v %v %v", got, found, err)
			}
			got, err := privdata.ParseHelloEdits(padded)
			if err != nil {
				t.Fatal(err)
			}
			if got.Omitted != c.wantOmitted || len(got.List) != len(c.wantList) {
				t.Fatalf("got %d edits (%d omitted), want %q (%d omitted)", len(got.List), got.Omitted, c.wantList, c.wantOmitted)
			}
			for i, e := range got.List {
				if e.String() != c.wantList[i] {
					t.Errorf("edit %d = %q, want %q", i, e, c.wantList[i])
				}
			}
		})
	}
}

// A version-1 hello has no edits section whatever follows it; a section
// that claims more than there is is an error, not a panic; the peer's
// bytes come out escaped.
func TestParseHelloEditsRefuses(t *testing.T) {
	v1 := []byte("rdmT\x01\x00\x00\x01\x05abcde")
	if got, err := privdata.ParseHelloEdits(v1); err != nil || len(got.List) != 0 {
		t.Errorf("version 1: %+v %v", got, err)
	}
	short := []byte("rdmT\x02\x00\x00\x02\x00\x05abcde")
	if _, err := privdata.ParseHelloEdits(short); err == nil || !strings.Contains(err.Error(), "edit 2 of 2") {
		t.Errorf("a second edit past the end: %v", err)
	}
	esc := []byte("rdmT\x02\x00\x00\x01\x00\x04a\x1b[m")
	got, err := privdata.ParseHelloEdits(esc)
	if err != nil || len(got.List) != 1 || got.List[0].String() != `a\e[m` {
		t.Errorf("escape in an edit: %+v %v", got, err)
	}
}

func FuzzParseHelloEdits(f *testing.F) {
	f.Add([]byte("rdmT\x02\x00\x00\x01\x00\x05abcde"))
	f.Add([]byte("rdmT\x02\x00\x00\xff\xff"))
	f.Fuzz(func(t *testing.T, p []byte) {
		got, err := privdata.ParseHelloEdits(p)
		if err == nil {
			for _, e := range got.List {
				if len(e) == 0 {
					t.Fatal("an empty edit was read")
				}
			}
		}
	})
}
