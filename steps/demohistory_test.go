package steps_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// TestPeerSnapshotsOfALinkedDemo: in a linked demo run back to back (as
// --auto does), each step keeps the other side's state right after it:
// the server's buffer is empty after the client's connect and holds the
// message after the client's WRITE (its bytes land while the client
// polls, and the poll does not seal the WRITE's state early), for every
// notify mode.
func TestPeerSnapshotsOfALinkedDemo(t *testing.T) {
	for _, n := range []steps.Notify{steps.NotifySend, steps.NotifyDoorbell, steps.NotifyImm} {
		const msg = "both sides at once"
		p := newPair(t, n, msg)
		steps.LinkDemo(p.srv, p.cli)
		steps.LinkDemo(p.srv, p.cli) // twice is harmless
		p.runTurns(t, -1)
		p.cli.Close()
		p.srv.Close()
		for i, st := range p.cli.Steps() {
			peer, ok := p.cli.PeerSnapshot(i)
			if !ok {
				t.Fatalf("%v: client step %s: no server state kept", n, st.ID)
			}
			has := strings.Contains(string(peer.Data.Bytes), msg)
			switch st.ID {
			case "connect":
				if has {
					t.Errorf("%v: the server's buffer holds the message after the client's connect", n)
				}
			case "post-write", "post-write-imm":
				if !has {
					t.Errorf("%v: the server's buffer lacks the message right after the client's %s", n, st.ID)
				}
			}
		}
		// The server ran to its listen before the client existed (and
		// before the link): those steps keep no client state.
		if _, ok := p.srv.PeerSnapshot(p.serverListenStep - 1); ok {
			t.Errorf("%v: a client state for the server's listen, run before the link", n)
		}
		if _, ok := p.srv.PeerSnapshot(p.serverListenStep); !ok {
			t.Errorf("%v: the server's first step after the link kept no client state", n)
		}
	}
}
