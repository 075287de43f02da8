package sim

import (
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// After an error leaves a QP in ERR, what brings the same two QPs back
// to a working SEND, as rxe answers it (rdmacore's TestRecoveryFacts,
// measured on 6.1 in the guest): both QPs through RESET, INIT, RTR and
// RTS with PSNs that match each other (old or new) works; the requester
// alone does not while the peer is in ERR; a requester whose new sq_psn
// is not the responder's expected PSN ends in transport retry counter
// exceeded; after an RNR error the responder stayed in RTS, so the
// requester alone, back on the old PSN, is enough.

// connectedManual is a server and a client with manual QPs, connected
// through rdma_cm and in RTS.
func connectedManual(t *testing.T) (srv, cli *mside) {
	t.Helper()
	srv = &mside{side: side{p: New(Options{})}, manual: true}
	cli = &mside{side: side{p: New(Options{})}, manual: true}
	var err error
	srv.ch, err = srv.p.CreateEventChannel()
	must(t, err)
	srv.lid, err = srv.ch.CreateID(verbs.PSTCP)
	must(t, err)
	must(t, srv.lid.BindAddr(netip.AddrPortFrom(loopback, 0)))
	must(t, srv.lid.Listen(1))
	cli.ch, err = cli.p.CreateEventChannel()
	must(t, err)
	cli.id, err = cli.ch.CreateID(verbs.PSTCP)
	must(t, err)
	must(t, cli.id.ResolveAddr(netip.AddrPort{}, srv.lid.LocalAddr(), time.Second))
	waitEvent(t, cli.ch, verbs.EventAddrResolved)
	cli.build(t)
	cli.step(t, verbs.QPSInit)
	must(t, cli.id.ResolveRoute(time.Second))
	waitEvent(t, cli.ch, verbs.EventRouteResolved)
	must(t, cli.id.Connect(verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1, QPNum: cli.qp.Num()}))
	srv.last = waitEvent(t, srv.ch, verbs.EventConnectRequest)
	srv.id = srv.last.ID
	srv.build(t)
	for _, st := range []verbs.QPState{verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS} {
		srv.step(t, st)
	}
	must(t, srv.id.Accept(verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1, QPNum: srv.qp.Num(), PrivateData: []byte("remote_info")}))
	waitEvent(t, cli.ch, verbs.EventConnectResponse)
	cli.step(t, verbs.QPSRTR)
	cli.step(t, verbs.QPSRTS)
	must(t, cli.id.Establish())
	waitEvent(t, srv.ch, verbs.EventEstablished)
	return srv, cli
}

// reset moves s's QP to RESET and back to RTS with rdma_init_qp_attr's
// attributes, the sq_psn moved by dsq (0: the CM's own).
func (s *mside) reset(t *testing.T, dsq uint32) {
	t.Helper()
	must(t, s.qp.Modify(verbs.QPAttr{State: verbs.QPSReset}, verbs.QPAttrState))
	s.step(t, verbs.QPSInit)
	s.step(t, verbs.QPSRTR)
	a, m, err := s.id.InitQPAttr(verbs.QPSRTS)
	must(t, err)
	a.SQPSN = (a.SQPSN + dsq) & 0xFFFFFF
	a.Timeout, a.RetryCnt, a.RNRRetry = 1, 1, 0 // fail fast
	must(t, s.qp.Modify(a, m))
}

func TestRecoveryAsRxe(t *testing.T) {
	for _, tc := range []struct {
		name         string
		rnr          bool   // the error: an RNR (else a bad rkey)
		srvBack      bool   // the responder is brought back too
		dsq          uint32 // the requester's new sq_psn, from the old one
		first, again verbs.WCStatus
	}{
		{"rkey; both back", false, true, 0, verbs.WCRemAccessErr, verbs.WCSuccess},
		{"rkey; requester back only", false, false, 0, verbs.WCRemAccessErr, verbs.WCRetryExcErr},
		{"rkey; both back, sq_psn ahead", false, true, 0x400, verbs.WCRemAccessErr, verbs.WCRetryExcErr},
		{"rnr; requester back only", true, false, 0, verbs.WCRNRRetryExcErr, verbs.WCSuccess},
		{"rnr; requester back only, sq_psn ahead", true, false, 0x400, verbs.WCRNRRetryExcErr, verbs.WCRetryExcErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, cli := connectedManual(t)
			defer func() { cli.close(t); srv.close(t) }()
			// rnr_retry 0 and a short timeout on the client: each failure is quick.
			cli.reset(t, 0)
			if tc.rnr {
				must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(cli.mrs[0], 0, 8)}))
			} else {
				must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled, SGList: sge(cli.mrs[0], 0, 8),
					RemoteAddr: srv.mrs[0].Addr(), RKey: srv.mrs[0].RKey() + 0x100}))
			}
			wantStatus(t, pollN(t, cli.cq, 1)[0], 1, tc.first)
			wantSrv := map[bool]verbs.QPState{true: verbs.QPSRTS, false: verbs.QPSErr}[tc.rnr]
			if st := qpState(t, srv.qp); st != wantSrv {
				t.Fatalf("server QP after the error: %s, want %s", st, wantSrv)
			}
			cli.reset(t, tc.dsq)
			if tc.srvBack {
				srv.reset(t, 0)
			}
			must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 9, SGList: sge(srv.mrs[0], 4096, 64)}))
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(cli.mrs[0], 0, 8)}))
			wantStatus(t, pollN(t, cli.cq, 1)[0], 2, tc.again)
		})
	}
}
