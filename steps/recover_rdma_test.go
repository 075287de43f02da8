//go:build linux && cgo

package steps

import (
	"net/netip"
	"testing"
	"time"
)

// The recover-qp lesson on rxe, server and client in one process on one
// device: run in the QEMU guest with RDMATOUR_RDMA_ADDR=10.0.2.15. The
// same checks as on the simulated NIC: both QPs back from ERR on the
// same connection with the old PSNs, and the second WRITE lands.
func TestRecoverQPOnRealVerbs(t *testing.T) {
	p, addr := realVerbs(t)
	const msg = "written again on rxe after recovery"
	start := time.Now()
	r := runRecoverQP(t, p, p, netip.AddrPortFrom(addr, 7610), msg)
	t.Logf("recover-qp ran in %v", time.Since(start))
	for _, key := range []string{"client/poll-write", "client/drain-cq", "server/drain-cq", "client/recover-rtr", "server/recover-rtr", "client/recover-rts", "client/poll-write-again", "server/wait-notify-again"} {
		t.Logf("%s:\n%s", key, r.outs[key].Call)
	}
	r.check(t, msg)
	r.srv.Close()
	r.cli.Close()
	if live := p.Live(); live.Total() != 0 {
		t.Fatalf("live %+v", live)
	}
}
