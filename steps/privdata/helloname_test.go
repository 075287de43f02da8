package privdata_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

// The sender's name crosses after the edits section (an empty one when
// there are no edits): a reader finds it behind the edits, zero padding
// reads as no name, and the edits still read as they did.
func TestHelloNameRoundTrip(t *testing.T) {
	room := verbs.MaxConnectPrivateData
	cases := []struct {
		name, lesson, sent, want string
		edits                    []string
	}{
		{name: "no name", lesson: "bad-rkey"},
		{name: "a name, no edits", sent: "Ada", want: "Ada"},
		{name: "a name after a lesson and an edit", lesson: "no-recv", sent: "李雷", want: "李雷", edits: []string{"cqe=1"}},
		{name: "cut at MaxHelloName", sent: strings.Repeat("n", 40), want: strings.Repeat("n", privdata.MaxHelloName)},
		{name: "a terminal escape stays the peer's bytes", sent: "\x1b[2Jx", want: "\x1b[2Jx"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := hello(0, c.lesson).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			b := privdata.AppendHelloEdits(h, c.edits, privdata.NameRoom(room, c.sent))
			b = privdata.AppendHelloName(b, c.sent, room)
			if len(b) > room {
				t.Fatalf("%d bytes in a room of %d", len(b), room)
			}
			padded := append(b, make([]byte, room-len(b))...)
			got, err := privdata.ParseHelloName(padded)
			if err != nil || string(got) != c.want {
				t.Errorf("name %q, %v; want %q", got, err, c.want)
			}
			edits, err := privdata.ParseHelloEdits(padded)
			if err != nil || len(edits.List) != len(c.edits) {
				t.Errorf("edits %+v, %v; want %v", edits, err, c.edits)
			}
		})
	}
}

// A name section that claims more than the private data holds is an
// error, not a read past the end.
func TestHelloNameBroken(t *testing.T) {
	h, _ := hello(0, "").Marshal()
	b := append(append(h, 0, 0), 20, 'a', 'b')
	if _, err := privdata.ParseHelloName(b); err == nil || !strings.Contains(err.Error(), "name of 20 bytes") {
		t.Errorf("got %v, want a name-too-long error", err)
	}
	if got, err := privdata.ParseHelloName([]byte("not a hello")); got != nil || err != nil {
		t.Errorf("no hello: %q %v", got, err)
	}
}
