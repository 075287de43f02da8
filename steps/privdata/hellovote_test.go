package privdata_test

import (
	"errors"
	"testing"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

// A vote crosses behind the edits (an empty edits section written for
// it), in a REQ's 56 bytes with the longest lesson name; zero padding,
// older hellos and the edits themselves read as before.
func TestHelloVoteRoundTrip(t *testing.T) {
	cases := []struct {
		name, lesson string
		edits        []string
		vote         privdata.HelloVote
		wantName     string
	}{
		{"pick and name", "bad-rkey", nil, privdata.HelloVote{Pick: 2, Name: privdata.PeerBytes("ann")}, "ann"},
		{"follows the room", "", nil, privdata.HelloVote{Pick: 1, Name: privdata.PeerBytes("dee"), Follows: true}, "dee"},
		{"no pick", "", nil, privdata.HelloVote{Name: privdata.PeerBytes("bo")}, "bo"},
		{"long name cut", "post-before-connect", nil, privdata.HelloVote{Pick: 1, Name: privdata.PeerBytes("a-very-long-name-indeed")}, "a-very-long-name"},
		{"after edits", "", []string{"cqe=1"}, privdata.HelloVote{Pick: 4, Name: privdata.PeerBytes("cy")}, "cy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := hello(0, c.lesson).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			room := verbs.MaxConnectPrivateData - privdata.VoteSize(c.vote.Name.String())
			b := privdata.AppendHelloEdits(h, c.edits, room)
			b, err = privdata.AppendHelloVote(b, len(c.edits) > 0, c.vote)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > verbs.MaxConnectPrivateData {
				t.Fatalf("%d bytes: more than a REQ carries", len(b))
			}
			padded := append(b, make([]byte, verbs.MaxConnectPrivateData-len(b))...)
			got, found, err := privdata.ParseHelloVote(padded)
			if err != nil || !found || got.Pick != c.vote.Pick || string(got.Name) != c.wantName || got.Follows != c.vote.Follows {
				t.Fatalf("vote = %+v %v %v, want pick %d name %q", got, found, err, c.vote.Pick, c.wantName)
			}
			hh, _, err := privdata.ParseHello(padded)
			if err != nil || hh.Lesson != c.lesson || hh.Version != 3 {
				t.Errorf("the hello itself: %+v %v", hh, err)
			}
			edits, err := privdata.ParseHelloEdits(padded)
			if err != nil || len(edits.List) != len(c.edits) {
				t.Errorf("edits: %+v %v, want %q", edits, err, c.edits)
			}
		})
	}
}

// No vote: a version-2 hello, zero padding behind an empty edits
// section; a cut vote is a *HelloError.
func TestHelloVoteAbsentOrBroken(t *testing.T) {
	h, _ := hello(0, "").Marshal()
	for name, p := range map[string][]byte{
		"version 2":     append(h, make([]byte, 20)...),
		"seed padding":  make([]byte, 56),
		"empty section": func() []byte { b := append([]byte(nil), h...); b[4] = 3; return append(b, make([]byte, 10)...) }(),
	} {
		if v, found, err := privdata.ParseHelloVote(p); found || err != nil {
			t.Errorf("%s: vote %+v %v %v, want none", name, v, found, err)
		}
	}
	b, _ := privdata.AppendHelloVote(h, false, privdata.HelloVote{Pick: 1, Name: privdata.PeerBytes("abcdef")})
	var he *privdata.HelloError
	if _, _, err := privdata.ParseHelloVote(b[:len(b)-3]); !errors.As(err, &he) {
		t.Errorf("a cut name: %v, want a *HelloError", err)
	}
	if _, err := privdata.AppendHelloVote(h, false, privdata.HelloVote{Pick: 256}); err == nil {
		t.Error("pick 256 was accepted")
	}
}

// A REJ carries the reason and, after a NUL, the room's plan; the reason
// alone when the plan does not fit; zero padding is no plan.
func TestRejectWithPlan(t *testing.T) {
	plan, _ := hello(0, "bad-rkey").Marshal()
	p := append(privdata.RejectWithPlan("this workshop runs --lesson bad-rkey", plan, verbs.MaxRejectPrivateData), make([]byte, 20)...)
	reason, rest := privdata.SplitReject(p)
	got, found, err := privdata.ParseHello(rest)
	if string(reason) != "this workshop runs --lesson bad-rkey" || !found || err != nil || got.Lesson != "bad-rkey" {
		t.Errorf("split = %q %+v %v %v", reason, got, found, err)
	}
	reason, rest = privdata.SplitReject(append([]byte("server full"), make([]byte, 30)...))
	if _, found, _ = privdata.ParseHello(rest); string(reason) != "server full" || found {
		t.Errorf("a plain reason: %q found=%v", reason, found)
	}
	if b := privdata.RejectWithPlan("0123456789", plan, 12); string(b) != "0123456789" {
		t.Errorf("no room for the plan: %q", b)
	}
}
