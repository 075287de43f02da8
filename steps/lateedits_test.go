package steps

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/verbs/sim"
)

// Item 3 of issue 21: an edit the client makes after it connected (the
// form, on post-write) rides in the SEND after RDMA_WRITE_DONE; the
// server's notification step names it, and its PeerInfo lists it. An
// edit made before the hello is not sent again.
func TestEditAfterConnectIsToldToTheServer(t *testing.T) {
	ctx := context.Background()
	srv, err := NewSession(Config{Role: Server, Provider: sim.New(sim.Options{}), Bind: netip.MustParseAddrPort("127.0.0.1:0")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for !srv.tour[srv.Next()].Reaches(MilestoneListening) {
		mustRun(t, srv)
	}
	mustRun(t, srv)
	early, _ := ParseEdit("post-write.wr_id=7")
	cli, err := NewSession(Config{Role: Client, Provider: sim.New(sim.Options{}), Server: srv.listener.LocalAddr(), Edits: Edits{early}})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	sides := map[Role]*Session{Server: srv, Client: cli}
	late, _ := ParseEdit("post-write.remote_addr=+16")
	for _, turn := range DemoPlan(srv.tour, cli.tour) {
		s := sides[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		if turn.Side == Client && cli.tour[turn.Index].ID == IDPostWrite {
			if err := cli.SetEdit(late); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.RunNext(ctx); err != nil {
			t.Fatalf("%s step %s: %v", turn.Side, s.tour[turn.Index].ID, err)
		}
	}
	var note string
	for i, st := range srv.tour {
		if st.ID == IDWaitNotify {
			note = srv.outcomes[i].Note.EN
		}
	}
	if !strings.Contains(note, "changed post-write.remote_addr=+16") || strings.Contains(note, "wr_id") {
		t.Errorf("the server's notification step says %q", note)
	}
	if got := strings.Join(srv.PeerInfo().Edits, " "); !strings.Contains(got, "post-write.remote_addr=+16") {
		t.Errorf("the server's PeerInfo edits: %q", got)
	}
	if r := srv.Snapshot().Result; r == nil || r.Notice.String() != DoneText {
		t.Errorf("the notice the server read: %+v", r)
	}
}

func mustRun(t *testing.T, s *Session) {
	t.Helper()
	if _, err := s.RunNext(context.Background()); err != nil {
		t.Fatal(err)
	}
}
