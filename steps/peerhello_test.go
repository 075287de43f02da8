package steps

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/verbs/sim"
)

func helloSession(t *testing.T, role Role, lesson string) *Session {
	t.Helper()
	cfg := Config{Role: role, Provider: sim.New(sim.Options{}), Lesson: lessonNamed(lesson)}
	if role == Client {
		cfg.Server = netip.MustParseAddrPort("127.0.0.1:7471")
	}
	s, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// What each side says about the peer's hello: agreement, no hello (the
// seed), a broken one, and the mismatches.
func TestLearnPeerTour(t *testing.T) {
	hello := func(lesson string) []byte {
		b, err := HelloFor(TourWrite, lesson).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return append(b, make([]byte, 56-len(b))...)
	}
	cases := []struct {
		name       string
		role       Role
		lesson     string
		peer       []byte
		wantKV     string
		wantNote   string // "" = no note
		wantAdopts bool   // this plain side now expects the peer lesson's errors
	}{
		{"same lesson", Server, "bad-rkey", hello("bad-rkey"), "--lesson bad-rkey", "", false},
		{"both plain", Client, "", hello(""), "--tour write", "", false},
		{"seed client, plain server", Server, "", make([]byte, 56), "--tour write", "sent no hello", false},
		{"seed client, lesson server", Server, "no-recv", nil, "--tour write", "only this side's half of lesson no-recv", false},
		{"broken hello", Server, "", []byte("rdmT\x01\x07\x00"), "--tour write", "could not be read", false},
		{"client lesson, plain server", Server, "", hello("bad-rkey"), "--lesson bad-rkey", "The client's mistake will reach this side too", true},
		{"server lesson whose mistake is the client's", Server, "", hello("post-before-connect"), "--lesson post-before-connect", "The client's mistake stays on its side", false},
		{"plain client, server lesson", Client, "", hello("no-remote-write"), "--lesson no-remote-write", "Mismatch: the server runs lesson no-remote-write, this side runs the plain tour.", true},
		{"lesson's mistake not made", Client, "no-recv", hello(""), "--tour write", "the error this side expects will not happen", false},
		{"two lessons", Client, "bad-rkey", hello("no-recv"), "--lesson no-recv", "Each side makes its own lesson's mistake", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := helloSession(t, tc.role, tc.lesson)
			kv, note := s.learnPeerTour(tc.peer)
			if !strings.Contains(kv.Value.EN, tc.wantKV) {
				t.Errorf("peer runs = %q, want %q", kv.Value, tc.wantKV)
			}
			if (tc.wantNote == "") != (note.EN == "") || !strings.Contains(note.EN, tc.wantNote) {
				t.Errorf("note = %q, want %q", note.EN, tc.wantNote)
			}
			if note.EN != "" && note.ZH == "" {
				t.Error("no Chinese note")
			}
			adopted := false
			for _, st := range s.Steps() {
				if st.Expect != nil {
					adopted = true
				}
			}
			if tc.lesson == "" && adopted != tc.wantAdopts {
				t.Errorf("adopted the peer lesson's expectations = %v, want %v", adopted, tc.wantAdopts)
			}
		})
	}
}
