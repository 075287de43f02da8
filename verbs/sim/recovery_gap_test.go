package sim

import (
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Recovery when the requester comes back first (rdmacore's
// TestRecoveryRetriesAcrossTheGap, measured on rxe 6.1 in the guest,
// 2026-12-02): its SEND goes out while the responder is still in ERR or
// RESET, which drop it; with retry_cnt 7 the requester resends every
// local ACK timeout (timeout 14: about 67 ms) and never gives up, rxe
// reading 7 as "for ever" (rxe_comp.c rxe_completer, COMPST_ERROR_RETRY;
// retry.go): the SEND lands once the responder is back in RTR on the old
// PSN, after 0.2 s, 1.5 s and 4 s gaps alike. A retry_cnt of 1 runs out
// first and ends in transport retry counter exceeded (TestRecoveryFacts).
// This is what carries the steps' recover-qp lesson across two processes
// that do not move in step.

// backWithRetries moves s's QP to RESET and back to RTS with
// rdma_init_qp_attr's attributes and the given timeout and retry_cnt.
func (s *mside) backWithRetries(t *testing.T, timeout, retries uint8) {
	t.Helper()
	must(t, s.qp.Modify(verbs.QPAttr{State: verbs.QPSReset}, verbs.QPAttrState))
	s.step(t, verbs.QPSInit)
	s.step(t, verbs.QPSRTR)
	a, m, err := s.id.InitQPAttr(verbs.QPSRTS)
	must(t, err)
	a.Timeout, a.RetryCnt, a.RNRRetry = timeout, retries, 0
	must(t, s.qp.Modify(a, m))
}

// pollOneWithin waits up to d for one completion on cq, without t (it
// runs beside the goroutine that brings the peer back).
func pollOneWithin(cq verbs.CQ, d time.Duration) (verbs.WC, bool) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Microsecond) {
		if wcs, err := cq.Poll(1); err == nil && len(wcs) == 1 {
			return wcs[0], true
		}
	}
	return verbs.WC{}, false
}

func TestRecoveryRetriesAcrossTheGap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gap     time.Duration // from the requester's SEND to the responder's RESET
		retries uint8         // the requester's retry_cnt
		want    verbs.WCStatus
	}{
		{"retry_cnt 7, responder back after 0.2 s", 200 * time.Millisecond, 7, verbs.WCSuccess},
		{"retry_cnt 7, responder back after 1.5 s", 1500 * time.Millisecond, 7, verbs.WCSuccess},
		{"retry_cnt 1, responder back after 1.5 s", 1500 * time.Millisecond, 1, verbs.WCRetryExcErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, cli := connectedManual(t)
			defer func() { cli.close(t); srv.close(t) }()
			cli.reset(t, 0)
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled, SGList: sge(cli.mrs[0], 0, 8),
				RemoteAddr: srv.mrs[0].Addr(), RKey: srv.mrs[0].RKey() + 0x100}))
			wantStatus(t, pollN(t, cli.cq, 1)[0], 1, verbs.WCRemAccessErr)
			cli.backWithRetries(t, 14, tc.retries)
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(cli.mrs[0], 0, 8)}))
			got := make(chan verbs.WC, 1)
			go func() { wc, _ := pollOneWithin(cli.cq, 10*time.Second); got <- wc }()
			time.Sleep(tc.gap)
			if st := qpState(t, srv.qp); st != verbs.QPSErr {
				t.Fatalf("server QP during the gap: %s, want ERR", st)
			}
			must(t, srv.qp.Modify(verbs.QPAttr{State: verbs.QPSReset}, verbs.QPAttrState))
			srv.step(t, verbs.QPSInit)
			must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 9, SGList: sge(srv.mrs[0], 4096, 64)}))
			srv.step(t, verbs.QPSRTR)
			srv.step(t, verbs.QPSRTS)
			wantStatus(t, <-got, 2, tc.want)
		})
	}
}
