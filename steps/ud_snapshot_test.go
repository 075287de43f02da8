package steps

import (
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// After the ud tour the client's snapshot (TestStateUD checks the QP
// number against the server's mid-tour) still names the destination
// its SENDs used (the server QP's number and Q_Key), the address handle
// is gone with the teardown, and the server's destination is the client
// QP its answer went to (wc.src_qp); the write tour has no UD state at all.
func TestUDSnapshot(t *testing.T) {
	sides := runPair(t, Config{Tour: TourUD})
	cli, srv := sides[Client].Snapshot(), sides[Server].Snapshot()
	if cli.UD == nil || !cli.UD.HasDest || cli.UD.RemoteQKey != verbs.UDPQKey || cli.UD.RemoteQPN == 0 {
		t.Fatalf("client UD state %+v", cli.UD)
	}
	if cli.UD.AH != nil {
		t.Errorf("address handle still shown after teardown: %+v", cli.UD.AH)
	}
	if srv.UD == nil || !srv.UD.HasDest || srv.UD.RemoteQPN == 0 || srv.UD.RemoteQPN != sides[Server].ud.received.SrcQP || srv.UD.RemoteQKey != verbs.UDPQKey || srv.UD.AH != nil {
		t.Errorf("server UD state %+v, want the client QP (src_qp of what it received) as its answer's destination and no AH after teardown", srv.UD)
	}
	w := runPair(t, Config{})
	if u := w[Client].Snapshot().UD; u != nil {
		t.Errorf("the write tour has UD state %+v", u)
	}
}
