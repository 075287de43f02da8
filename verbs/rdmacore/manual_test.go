//go:build linux && cgo

package rdmacore

import (
	"context"
	"errors"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// The manual QP bring-up on real verbs: ibv_create_qp, then
// rdma_init_qp_attr + ibv_modify_qp for RESET -> INIT -> RTR -> RTS, with
// ibv_query_qp after every step, rdma_establish on the active side, and a
// WRITE across. Needs a device (the QEMU guest); skips otherwise.

var qpCaps = verbs.QPCap{MaxSendWR: 16, MaxRecvWR: 16, MaxSendSGE: 1, MaxRecvSGE: 1}

type mside struct {
	name   string
	manual bool
	ch     verbs.EventChannel
	id     verbs.CMID
	pd     verbs.PD
	cq     verbs.CQ
	qp     verbs.QP
	mr     verbs.MR
}

func (s *mside) resources(t *testing.T) {
	t.Helper()
	dev := s.id.Device()
	if dev == nil {
		t.Fatalf("%s: id has no device", s.name)
	}
	s.pd = must(dev.AllocPD())(t)
	s.cq = must(dev.CreateCQ(32))(t)
	s.mr = must(s.pd.RegMR(4096, verbs.AccessLocalWrite|verbs.AccessRemoteWrite|verbs.AccessRemoteRead))(t)
	ia := verbs.QPInitAttr{SendCQ: s.cq, RecvCQ: s.cq, Type: verbs.QPTRC, Cap: qpCaps}
	if !s.manual {
		s.qp = must(s.id.CreateQP(s.pd, ia))(t)
		return
	}
	s.qp = must(dev.CreateQP(s.pd, ia))(t)
	if st := must(s.qp.Query())(t).State; st != verbs.QPSReset {
		t.Fatalf("%s: QP after ibv_create_qp in %s, want RESET", s.name, st)
	}
	if s.id.QP() != nil {
		t.Fatalf("%s: ibv_create_qp attached the QP to the id", s.name)
	}
}

// step runs rdma_init_qp_attr(state) + ibv_modify_qp and checks the state.
func (s *mside) step(t *testing.T, state verbs.QPState) verbs.QPAttr {
	t.Helper()
	attr, mask, err := s.id.InitQPAttr(state)
	if err != nil {
		t.Fatalf("%s: rdma_init_qp_attr(%s): %v", s.name, state, err)
	}
	t.Logf("%s: rdma_init_qp_attr(%s) mask=%s (0x%x)", s.name, state.CName(), mask, uint32(mask))
	t.Logf("%s:   attr state=%s pkey_index=%d port=%d access=%s path_mtu=%d dest_qpn=0x%x rq_psn=0x%x sq_psn=0x%x max_dest_rd_atomic=%d min_rnr_timer=%d max_rd_atomic=%d timeout=%d retry_cnt=%d rnr_retry=%d qkey=0x%x ah=%s",
		s.name, attr.State.CName(), attr.PKeyIndex, attr.PortNum, attr.AccessFlags, attr.PathMTU, attr.DestQPNum, attr.RQPSN, attr.SQPSN,
		attr.MaxDestRdAtom, attr.MinRNRTimer, attr.MaxRdAtomic, attr.Timeout, attr.RetryCnt, attr.RNRRetry, attr.QKey, attr.AH)
	if err := s.qp.Modify(attr, mask); err != nil {
		t.Fatalf("%s: ibv_modify_qp(%s, %s): %v", s.name, state, mask, err)
	}
	q := must(s.qp.Query())(t)
	if q.State != state {
		t.Fatalf("%s: ibv_query_qp after modify: %s, want %s", s.name, q.State, state)
	}
	t.Logf("%s:   ibv_query_qp: state=%s dest_qpn=0x%x rq_psn=0x%x sq_psn=0x%x path_mtu=%d access=%s", s.name, q.State, q.DestQPNum, q.RQPSN, q.SQPSN, q.PathMTU, q.AccessFlags)
	return attr
}

func (s *mside) teardown(t *testing.T) {
	t.Helper()
	if s.qp != nil {
		var err error
		if s.manual {
			err = s.qp.Destroy()
		} else {
			err = s.id.DestroyQP()
		}
		if err != nil {
			t.Errorf("%s: destroy QP: %v", s.name, err)
		}
	}
	if s.mr != nil {
		noErr(t, s.mr.Dereg())
	}
	if s.cq != nil {
		noErr(t, s.cq.Destroy())
	}
	if s.pd != nil {
		noErr(t, s.pd.Dealloc())
	}
	if s.id != nil {
		noErr(t, s.id.Destroy())
	}
}

func errnoIs(err error) string {
	var e *verbs.Error
	if errors.As(err, &e) {
		return e.Func + " " + verbs.ErrnoName(e.Errno)
	}
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func TestManualQPBringUp(t *testing.T) {
	for _, tc := range []struct {
		name     string
		srv, cli bool
	}{{"both-manual", true, true}, {"manual-client", false, true}, {"manual-server", true, false}} {
		t.Run(tc.name, func(t *testing.T) { manualPair(t, tc.srv, tc.cli) })
	}
}

func manualPair(t *testing.T, srvManual, cliManual bool) {
	p, err := Open()
	if err != nil {
		t.Skip(err)
	}
	addr := rdmaAddr(t, p)
	ap := netip.AddrPortFrom(addr, port())
	srv := &mside{name: "server", manual: srvManual}
	cli := &mside{name: "client", manual: cliManual}
	var listener verbs.CMID
	defer func() {
		cli.teardown(t)
		srv.teardown(t)
		if listener != nil {
			noErr(t, listener.Destroy())
		}
		for _, ch := range []verbs.EventChannel{cli.ch, srv.ch} {
			if ch != nil {
				noErr(t, ch.Destroy())
			}
		}
		if live := p.Live(); live.Total() != 0 {
			t.Errorf("live after teardown: %+v", live)
		}
	}()

	srv.ch = must(p.CreateEventChannel())(t)
	listener = must(srv.ch.CreateID(verbs.PSTCP))(t)
	noErr(t, listener.BindAddr(ap))
	noErr(t, listener.Listen(4))
	if _, _, err := listener.InitQPAttr(verbs.QPSInit); true {
		t.Logf("FACT listener rdma_init_qp_attr(INIT): %s", errnoIs(err))
	}

	cli.ch = must(p.CreateEventChannel())(t)
	cli.id = must(cli.ch.CreateID(verbs.PSTCP))(t)
	if _, _, err := cli.id.InitQPAttr(verbs.QPSInit); true {
		t.Logf("FACT idle id rdma_init_qp_attr(INIT): %s", errnoIs(err))
	}
	noErr(t, cli.id.ResolveAddr(netip.AddrPort{}, ap, 5*time.Second))
	event(t, cli.ch, verbs.EventAddrResolved)
	cli.resources(t)
	if cliManual {
		// An illegal transition first: RESET -> RTR.
		err := cli.qp.Modify(verbs.QPAttr{State: verbs.QPSRTR}, verbs.QPAttrState)
		t.Logf("FACT RESET->RTR mask IBV_QP_STATE: %v", err)
		if !errors.Is(err, syscall.EINVAL) {
			t.Errorf("RESET->RTR: %v, want EINVAL", err)
		}
		err = cli.qp.Modify(verbs.QPAttr{State: verbs.QPSInit}, verbs.QPAttrState)
		t.Logf("FACT RESET->INIT mask IBV_QP_STATE only: %v", err)
		if a, m, err := cli.id.InitQPAttr(verbs.QPSRTR); err != nil {
			t.Logf("FACT client rdma_init_qp_attr(RTR) before connect: %s", errnoIs(err))
		} else {
			t.Logf("FACT client rdma_init_qp_attr(RTR) before connect: ok mask=%s state=%s", m, a.State)
		}
		cli.step(t, verbs.QPSInit)
		if a, m, err := cli.id.InitQPAttr(verbs.QPSRTR); err == nil {
			err = cli.qp.Modify(a, m)
			t.Logf("FACT client INIT->RTR with rdma_init_qp_attr(RTR) before connect (mask %s): %s", m, errnoIs(err))
		}
		if st := must(cli.qp.Query())(t).State; st != verbs.QPSInit {
			t.Fatalf("client QP in %s after failed RTR, want INIT", st)
		}
	}
	noErr(t, cli.id.ResolveRoute(5*time.Second))
	event(t, cli.ch, verbs.EventRouteResolved)
	cp := verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1, RetryCount: 7, RNRRetryCount: 7}
	if cliManual {
		cp.QPNum = cli.qp.Num()
	}
	noErr(t, cli.id.Connect(cp))
	if cliManual {
		_, _, err := cli.id.InitQPAttr(verbs.QPSRTR)
		t.Logf("FACT client rdma_init_qp_attr(RTR) after connect, before REP: %s", errnoIs(err))
		_, _, err = cli.id.InitQPAttr(verbs.QPSRTS)
		t.Logf("FACT client rdma_init_qp_attr(RTS) after connect, before REP: %s", errnoIs(err))
	}

	req := event(t, srv.ch, verbs.EventConnectRequest)
	srv.id = req.ID
	t.Logf("server: CONNECT_REQUEST qp_num=0x%x (client QP 0x%x) rr=%d id=%d", req.QPNum, cli.qp.Num(), req.ResponderResources, req.InitiatorDepth)
	if req.QPNum != cli.qp.Num() {
		t.Errorf("REQ carries qp_num 0x%x, client QP is 0x%x", req.QPNum, cli.qp.Num())
	}
	srv.resources(t)
	var srvRTS verbs.QPAttr
	if srvManual {
		err := srv.qp.PostRecv(verbs.RecvWR{WRID: 1, SGList: []verbs.SGE{{Addr: srv.mr.Addr() + 2048, Length: 128, LKey: srv.mr.LKey()}}})
		t.Logf("FACT ibv_post_recv in RESET: %s", errnoIs(err))
		if _, _, err := srv.id.InitQPAttr(verbs.QPSRTS); true {
			t.Logf("FACT server rdma_init_qp_attr(RTS) on CONNECT_REQUEST id: %s", errnoIs(err))
		}
		srv.step(t, verbs.QPSInit)
		err = srv.qp.PostSend(verbs.SendWR{WRID: 9, Opcode: verbs.WRSend, SGList: []verbs.SGE{{Addr: srv.mr.Addr(), Length: 4, LKey: srv.mr.LKey()}}})
		t.Logf("FACT ibv_post_send in INIT: %s", errnoIs(err))
		err = srv.qp.Modify(verbs.QPAttr{State: verbs.QPSRTS}, verbs.QPAttrState|verbs.QPAttrSQPSN|verbs.QPAttrTimeout|verbs.QPAttrRetryCnt|verbs.QPAttrRNRRetry|verbs.QPAttrMaxQPRdAtomic)
		t.Logf("FACT INIT->RTS (full RTS mask): %s", errnoIs(err))
	}
	noErr(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 1, SGList: []verbs.SGE{{Addr: srv.mr.Addr() + 2048, Length: 128, LKey: srv.mr.LKey()}}}))
	if srvManual {
		a, m, err := srv.id.InitQPAttr(verbs.QPSRTR)
		if err == nil {
			err = srv.qp.Modify(a, m&^verbs.QPAttrMinRNRTimer)
			t.Logf("FACT INIT->RTR without IBV_QP_MIN_RNR_TIMER: %s", errnoIs(err))
			err = srv.qp.Modify(a, m|verbs.QPAttrSQPSN)
			t.Logf("FACT INIT->RTR with extra IBV_QP_SQ_PSN: %s", errnoIs(err))
		}
		srv.step(t, verbs.QPSRTR)
		srvRTS = srv.step(t, verbs.QPSRTS)
	}
	ap2 := verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1, RetryCount: 7, RNRRetryCount: 7, PrivateData: remoteInfo(srv.mr)}
	if srvManual {
		ap2.QPNum = srv.qp.Num()
	}
	noErr(t, srv.id.Accept(ap2))
	if !srvManual {
		srvRTS = must(srv.qp.Query())(t)
	}

	if cliManual {
		ev := event(t, cli.ch, verbs.EventConnectResponse)
		t.Logf("client: CONNECT_RESPONSE qp_num=0x%x (server QP 0x%x) private_data_len=%d", ev.QPNum, srv.qp.Num(), len(ev.PrivateData))
		rtr := cli.step(t, verbs.QPSRTR)
		if rtr.DestQPNum != srv.qp.Num() {
			t.Errorf("client RTR dest_qp_num 0x%x, server QP 0x%x", rtr.DestQPNum, srv.qp.Num())
		}
		if rtr.RQPSN != srvRTS.SQPSN {
			t.Errorf("client RTR rq_psn 0x%x, server sq_psn 0x%x", rtr.RQPSN, srvRTS.SQPSN)
		}
		cli.step(t, verbs.QPSRTS)
		noErr(t, cli.id.Establish())
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		ev2, err := cli.ch.GetEvent(ctx)
		cancel()
		if err == nil {
			t.Logf("FACT client event after rdma_establish: %s status %d", ev2.Type, ev2.Status)
		} else {
			t.Logf("FACT client event after rdma_establish: none within 2 s (%v)", err)
		}
	} else {
		event(t, cli.ch, verbs.EventEstablished)
	}
	event(t, srv.ch, verbs.EventEstablished)
	if err := srv.id.Establish(); true {
		t.Logf("FACT rdma_establish on the passive side after ESTABLISHED: %s", errnoIs(err))
	}
	for _, s := range []*mside{srv, cli} {
		q := must(s.qp.Query())(t)
		t.Logf("%s: final ibv_query_qp state=%s qpn=0x%x dest=0x%x sq_psn=0x%x rq_psn=0x%x", s.name, q.State, s.qp.Num(), q.DestQPNum, q.SQPSN, q.RQPSN)
		if q.State != verbs.QPSRTS {
			t.Errorf("%s QP in %s, want RTS", s.name, q.State)
		}
	}

	// The WRITE, then a SEND into the server's RECV.
	msg := []byte("manual QP bring-up works")
	noErr(t, cli.mr.Write(0, msg))
	noErr(t, cli.qp.PostSend(verbs.SendWR{WRID: 7, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: cli.mr.Addr(), Length: uint32(len(msg)), LKey: cli.mr.LKey()}}, RemoteAddr: srv.mr.Addr(), RKey: srv.mr.RKey()}))
	wc := pollOneT(t, cli.cq)
	if wc.Status != verbs.WCSuccess || wc.Opcode != verbs.WCRDMAWrite {
		t.Fatalf("client WRITE completion: %s %s", wc.Status, wc.Opcode)
	}
	got := must(srv.mr.Read(0, len(msg)))(t)
	if string(got) != string(msg) {
		t.Fatalf("server buffer %q, want %q", got, msg)
	}
	noErr(t, cli.qp.PostSend(verbs.SendWR{WRID: 8, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: cli.mr.Addr(), Length: 4, LKey: cli.mr.LKey()}}}))
	if wc := pollOneT(t, cli.cq); wc.Status != verbs.WCSuccess {
		t.Fatalf("client SEND: %s", wc.Status)
	}
	if wc := pollOneT(t, srv.cq); wc.Status != verbs.WCSuccess || wc.Opcode != verbs.WCRecv {
		t.Fatalf("server RECV: %s %s", wc.Status, wc.Opcode)
	}

	// Disconnect: the CM does not touch a QP it does not own.
	noErr(t, cli.id.Disconnect())
	event(t, srv.ch, verbs.EventDisconnected)
	noErr(t, srv.id.Disconnect())
	event(t, cli.ch, verbs.EventDisconnected)
	for _, s := range []*mside{srv, cli} {
		t.Logf("FACT %s (manual=%v) QP after rdma_disconnect: %s", s.name, s.manual, must(s.qp.Query())(t).State)
	}
	if cliManual {
		err := cli.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}, verbs.QPAttrState)
		t.Logf("FACT client RTS->ERR: %s", errnoIs(err))
		err = cli.qp.Modify(verbs.QPAttr{State: verbs.QPSReset}, verbs.QPAttrState)
		t.Logf("FACT client ERR->RESET: %s", errnoIs(err))
	}
	if !srvManual {
		t.Logf("FACT ibv_destroy_qp on an rdma_create_qp QP: %s", errnoIs(srv.qp.Destroy()))
	}
}

func pollOneT(t *testing.T, cq verbs.CQ) verbs.WC {
	t.Helper()
	deadline := time.Now().Add(evTimeout)
	for time.Now().Before(deadline) {
		wcs, err := cq.Poll(1)
		noErr(t, err)
		if len(wcs) == 1 {
			return wcs[0]
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no completion")
	return verbs.WC{}
}
