package sim

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// fullAttr has a valid value for every attribute a transition may need.
var fullAttr = verbs.QPAttr{
	PKeyIndex: 0, PortNum: 1, AccessFlags: verbs.AccessRemoteWrite,
	AH:      verbs.AHAttr{IsGlobal: true, DGID: netip.MustParseAddr("::ffff:127.0.0.1"), SGIDIndex: gidIndexInUse, HopLimit: 64, PortNum: 1},
	PathMTU: 1024, DestQPNum: 0x22, RQPSN: 1, MaxDestRdAtom: 1, MinRNRTimer: 12,
	SQPSN: 5, Timeout: 14, RetryCnt: 7, RNRRetry: 7, MaxRdAtomic: 1,
}

const (
	maskInit = verbs.QPAttrPKeyIndex | verbs.QPAttrPort | verbs.QPAttrAccessFlags
	maskRTR  = verbs.QPAttrAV | verbs.QPAttrPathMTU | verbs.QPAttrDestQPN | verbs.QPAttrRQPSN | verbs.QPAttrMaxDestRdAtomic | verbs.QPAttrMinRNRTimer
	maskRTS  = verbs.QPAttrSQPSN | verbs.QPAttrTimeout | verbs.QPAttrRetryCnt | verbs.QPAttrRNRRetry | verbs.QPAttrMaxQPRdAtomic
)

// want is the RC transition table as the IBA (and ib_modify_qp_is_ok)
// has it, written out independently of the implementation: the required
// attributes of each legal transition (besides IBV_QP_STATE).
var legalRC = map[[2]verbs.QPState]verbs.QPAttrMask{
	{verbs.QPSReset, verbs.QPSReset}: 0,
	{verbs.QPSReset, verbs.QPSInit}:  maskInit,
	{verbs.QPSReset, verbs.QPSErr}:   0,
	{verbs.QPSInit, verbs.QPSReset}:  0,
	{verbs.QPSInit, verbs.QPSInit}:   0,
	{verbs.QPSInit, verbs.QPSRTR}:    maskRTR,
	{verbs.QPSInit, verbs.QPSErr}:    0,
	{verbs.QPSRTR, verbs.QPSReset}:   0,
	{verbs.QPSRTR, verbs.QPSRTS}:     maskRTS,
	{verbs.QPSRTR, verbs.QPSErr}:     0,
	{verbs.QPSRTS, verbs.QPSReset}:   0,
	{verbs.QPSRTS, verbs.QPSRTS}:     0,
	{verbs.QPSRTS, verbs.QPSErr}:     0,
	{verbs.QPSErr, verbs.QPSReset}:   0,
	{verbs.QPSErr, verbs.QPSErr}:     0,
}

type qpRig struct {
	p  *Provider
	pd verbs.PD
	cq verbs.CQ
}

func newRig(t *testing.T) *qpRig {
	t.Helper()
	r := &qpRig{p: New(Options{})}
	var err error
	r.pd, err = r.p.dev.AllocPD()
	must(t, err)
	r.cq, err = r.p.dev.CreateCQ(16)
	must(t, err)
	t.Cleanup(func() {
		must(t, r.cq.Destroy())
		must(t, r.pd.Dealloc())
		if n := r.p.Live(); n.Total() != 0 {
			t.Errorf("live after test: %+v", n)
		}
	})
	return r
}

func (r *qpRig) qp(t *testing.T) verbs.QP {
	t.Helper()
	q, err := r.p.dev.CreateQP(r.pd, verbs.QPInitAttr{SendCQ: r.cq, RecvCQ: r.cq, Type: verbs.QPTRC,
		Cap: verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}})
	must(t, err)
	t.Cleanup(func() { must(t, q.Destroy()) })
	return q
}

// bringTo walks a fresh QP to state along RESET -> INIT -> RTR -> RTS
// (ERR: from RTS).
func bringTo(t *testing.T, q verbs.QP, st verbs.QPState) {
	t.Helper()
	path := map[verbs.QPState][]verbs.QPState{
		verbs.QPSReset: nil,
		verbs.QPSInit:  {verbs.QPSInit},
		verbs.QPSRTR:   {verbs.QPSInit, verbs.QPSRTR},
		verbs.QPSRTS:   {verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS},
		verbs.QPSErr:   {verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS, verbs.QPSErr},
	}[st]
	cur := verbs.QPSReset
	for _, next := range path {
		a := fullAttr
		a.State = next
		must(t, q.Modify(a, verbs.QPAttrState|legalRC[[2]verbs.QPState{cur, next}]))
		cur = next
	}
	if got := qpState(t, q); got != st {
		t.Fatalf("brought to %s, want %s", got, st)
	}
}

func TestModifyQPTransitions(t *testing.T) {
	from := []verbs.QPState{verbs.QPSReset, verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS, verbs.QPSErr}
	to := []verbs.QPState{verbs.QPSReset, verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS, verbs.QPSSQD, verbs.QPSErr}
	for _, cur := range from {
		for _, next := range to {
			req, legal := legalRC[[2]verbs.QPState{cur, next}]
			t.Run(fmt.Sprintf("%s-%s", cur, next), func(t *testing.T) {
				r := newRig(t)
				a := fullAttr
				a.State = next
				if !legal {
					// Illegal whatever the mask: the transition's own
					// required set, and every attribute at once.
					for _, m := range []verbs.QPAttrMask{verbs.QPAttrState, verbs.QPAttrState | maskInit, verbs.QPAttrState | maskRTR, verbs.QPAttrState | maskRTS} {
						q := r.qp(t)
						bringTo(t, q, cur)
						err := q.Modify(a, m)
						want := errEINVAL
						if cur == verbs.QPSRTS && next == verbs.QPSSQD {
							want = syscall.EOPNOTSUPP
						}
						wantErrno(t, err, "ibv_modify_qp", want)
						if got := qpState(t, q); got != cur {
							t.Fatalf("failed modify changed the state to %s", got)
						}
					}
					return
				}
				q := r.qp(t)
				bringTo(t, q, cur)
				must(t, q.Modify(a, verbs.QPAttrState|req))
				if got := qpState(t, q); got != next {
					t.Fatalf("state %s after %s -> %s", got, cur, next)
				}
				// Each required attribute left out: EINVAL, state unchanged.
				for bit := verbs.QPAttrMask(1); bit <= verbs.QPAttrDestQPN; bit <<= 1 {
					if req&bit == 0 {
						continue
					}
					q := r.qp(t)
					bringTo(t, q, cur)
					wantErrno(t, q.Modify(a, verbs.QPAttrState|req&^bit), "ibv_modify_qp", errEINVAL)
					if got := qpState(t, q); got != cur {
						t.Fatalf("without %s: state %s, want %s", bit, got, cur)
					}
				}
				// An attribute the transition does not take: EINVAL.
				q2 := r.qp(t)
				bringTo(t, q2, cur)
				wantErrno(t, q2.Modify(a, verbs.QPAttrState|req|verbs.QPAttrQKey), "ibv_modify_qp", errEINVAL)
			})
		}
	}
}

func TestModifyQPAttributeValues(t *testing.T) {
	r := newRig(t)
	bad := []struct {
		name string
		cur  verbs.QPState
		edit func(*verbs.QPAttr)
	}{
		{"port 2", verbs.QPSReset, func(a *verbs.QPAttr) { a.PortNum = 2 }},
		{"pkey_index 1", verbs.QPSReset, func(a *verbs.QPAttr) { a.PKeyIndex = 1 }},
		{"no GRH", verbs.QPSInit, func(a *verbs.QPAttr) { a.AH.IsGlobal = false }},
		{"sgid_index 0 (link-local toward IPv4)", verbs.QPSInit, func(a *verbs.QPAttr) { a.AH.SGIDIndex = 0 }},
		{"path_mtu 1500", verbs.QPSInit, func(a *verbs.QPAttr) { a.PathMTU = 1500 }},
		{"dest_qp_num 25 bits", verbs.QPSInit, func(a *verbs.QPAttr) { a.DestQPNum = 1 << 24 }},
		{"retry_cnt 8", verbs.QPSRTR, func(a *verbs.QPAttr) { a.RetryCnt = 8 }},
		{"max_rd_atomic 200", verbs.QPSRTR, func(a *verbs.QPAttr) { a.MaxRdAtomic = 200 }},
	}
	next := map[verbs.QPState]verbs.QPState{verbs.QPSReset: verbs.QPSInit, verbs.QPSInit: verbs.QPSRTR, verbs.QPSRTR: verbs.QPSRTS}
	for _, b := range bad {
		q := r.qp(t)
		bringTo(t, q, b.cur)
		a := fullAttr
		a.State = next[b.cur]
		b.edit(&a)
		err := q.Modify(a, verbs.QPAttrState|legalRC[[2]verbs.QPState{b.cur, a.State}])
		var e *verbs.Error
		if !errors.As(err, &e) || e.Errno != errEINVAL {
			t.Errorf("%s: %v, want EINVAL", b.name, err)
		}
	}
	// Posting follows the state: RECV needs INIT, SEND needs RTS.
	q := r.qp(t)
	wantErrno(t, q.PostRecv(verbs.RecvWR{WRID: 1}), "ibv_post_recv", errEINVAL)
	bringTo(t, q, verbs.QPSInit)
	must(t, q.PostRecv(verbs.RecvWR{WRID: 1}))
	wantErrno(t, q.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSend}), "ibv_post_send", errEINVAL)
	// To RESET: the posted RECV is gone without a completion.
	must(t, q.Modify(verbs.QPAttr{State: verbs.QPSReset}, verbs.QPAttrState))
	noMore(t, r.cq)
	// ibv_destroy_qp twice.
	q2, err := r.p.dev.CreateQP(r.pd, verbs.QPInitAttr{SendCQ: r.cq, RecvCQ: r.cq, Type: verbs.QPTRC,
		Cap: verbs.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	must(t, err)
	must(t, q2.Destroy())
	wantErrno(t, q2.Destroy(), "ibv_destroy_qp", errEINVAL)
}

func TestQPAttrMaskString(t *testing.T) {
	m := verbs.QPAttrState | verbs.QPAttrPKeyIndex | verbs.QPAttrPort | verbs.QPAttrAccessFlags
	if got, want := m.String(), "IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if uint32(maskRTR|verbs.QPAttrState) != 0x129181 || uint32(maskRTS|verbs.QPAttrState) != 0x12e01 {
		t.Errorf("RTR/RTS masks 0x%x 0x%x, want rxe's 0x129181 0x12e01", uint32(maskRTR|verbs.QPAttrState), uint32(maskRTS|verbs.QPAttrState))
	}
}

// mside is one side of a connection whose QP may be brought up by hand.
type mside struct {
	side
	manual bool
}

func (s *mside) build(t *testing.T) {
	t.Helper()
	dev := s.id.Device()
	var err error
	s.pd, err = dev.AllocPD()
	must(t, err)
	s.cq, err = dev.CreateCQ(32)
	must(t, err)
	ia := verbs.QPInitAttr{SendCQ: s.cq, RecvCQ: s.cq, Type: verbs.QPTRC, Cap: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}}
	if s.manual {
		s.qp, err = dev.CreateQP(s.pd, ia)
		must(t, err)
		if qpState(t, s.qp) != verbs.QPSReset || s.id.QP() != nil {
			t.Fatal("ibv_create_qp: want a QP in RESET not attached to the id")
		}
	} else {
		s.qp, err = s.id.CreateQP(s.pd, ia)
		must(t, err)
	}
	s.regMR(t, 8192, verbs.AccessLocalWrite|verbs.AccessRemoteWrite|verbs.AccessRemoteRead)
}

func (s *mside) step(t *testing.T, st verbs.QPState) verbs.QPAttr {
	t.Helper()
	a, m, err := s.id.InitQPAttr(st)
	must(t, err)
	must(t, s.qp.Modify(a, m))
	if got := qpState(t, s.qp); got != st {
		t.Fatalf("after modify to %s: %s", st, got)
	}
	return a
}

func (s *mside) close(t *testing.T) {
	t.Helper()
	if s.manual && s.qp != nil {
		must(t, s.qp.Destroy())
		s.qp = nil
	}
	teardown(t, &s.side)
}

func noEvent(t *testing.T, ch verbs.EventChannel, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if ev, err := ch.GetEvent(ctx); err == nil {
		t.Fatalf("unexpected event %s", ev.Type)
	}
}

func TestManualConnection(t *testing.T) {
	for _, tc := range []struct {
		name     string
		srv, cli bool
	}{{"both-manual", true, true}, {"manual-client", false, true}, {"manual-server", true, false}} {
		t.Run(tc.name, func(t *testing.T) { manualConnection(t, tc.srv, tc.cli) })
	}
}

func manualConnection(t *testing.T, srvManual, cliManual bool) {
	srv := &mside{side: side{p: New(Options{})}, manual: srvManual}
	cli := &mside{side: side{p: New(Options{})}, manual: cliManual}
	var err error
	srv.ch, err = srv.p.CreateEventChannel()
	must(t, err)
	srv.lid, err = srv.ch.CreateID(verbs.PSTCP)
	must(t, err)
	must(t, srv.lid.BindAddr(netip.AddrPortFrom(loopback, 0)))
	must(t, srv.lid.Listen(1))
	_, _, err = srv.lid.InitQPAttr(verbs.QPSInit)
	wantErrno(t, err, "rdma_init_qp_attr", errEINVAL) // a listener: rxe says EINVAL too

	cli.ch, err = cli.p.CreateEventChannel()
	must(t, err)
	cli.id, err = cli.ch.CreateID(verbs.PSTCP)
	must(t, err)
	_, _, err = cli.id.InitQPAttr(verbs.QPSInit)
	wantErrno(t, err, "rdma_init_qp_attr", errEINVAL) // no device yet
	must(t, cli.id.ResolveAddr(netip.AddrPort{}, srv.lid.LocalAddr(), time.Second))
	waitEvent(t, cli.ch, verbs.EventAddrResolved)
	cli.build(t)
	if cliManual {
		wantErrno(t, cli.qp.Modify(verbs.QPAttr{State: verbs.QPSRTR}, verbs.QPAttrState), "ibv_modify_qp", errEINVAL)
		// Before connect the CM hands out INIT attributes whatever is
		// asked; an RTR built from them fails.
		a, m, err := cli.id.InitQPAttr(verbs.QPSRTR)
		must(t, err)
		if m != verbs.QPAttrState|maskInit || a.State != verbs.QPSRTR {
			t.Fatalf("pre-connect rdma_init_qp_attr(RTR) = %s, %s", a.State, m)
		}
		init := cli.step(t, verbs.QPSInit)
		if init.AccessFlags != 0 || init.PortNum != 1 || init.PKeyIndex != 0 {
			t.Fatalf("pre-connect INIT attr = %+v", init)
		}
		wantErrno(t, cli.qp.Modify(a, m), "ibv_modify_qp", errEINVAL)
	}
	must(t, cli.id.ResolveRoute(time.Second))
	waitEvent(t, cli.ch, verbs.EventRouteResolved)
	cp := verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1, RetryCount: 7, RNRRetryCount: 7}
	if cliManual {
		cp.QPNum = cli.qp.Num()
	}
	must(t, cli.id.Connect(cp))
	if cliManual {
		_, _, err := cli.id.InitQPAttr(verbs.QPSRTR)
		wantErrno(t, err, "rdma_init_qp_attr", errEINVAL) // the REP has not come
	}

	srv.last = waitEvent(t, srv.ch, verbs.EventConnectRequest)
	srv.id = srv.last.ID
	if srv.last.QPNum != cli.qp.Num() {
		t.Fatalf("REQ qp_num 0x%x, client QP 0x%x", srv.last.QPNum, cli.qp.Num())
	}
	srv.build(t)
	var srvSQPSN uint32
	if srvManual {
		init := srv.step(t, verbs.QPSInit)
		if want := verbs.AccessRemoteWrite | verbs.AccessRemoteRead | verbs.AccessRemoteAtomic; init.AccessFlags != want {
			t.Errorf("server INIT access %s, want %s", init.AccessFlags, want)
		}
	}
	must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 1, SGList: sge(srv.mrs[0], 4096, 128)}))
	if srvManual {
		rtr := srv.step(t, verbs.QPSRTR)
		if rtr.DestQPNum != cli.qp.Num() || !rtr.AH.IsGlobal || rtr.MaxDestRdAtom != 1 {
			t.Errorf("server RTR attr %+v", rtr)
		}
		srvSQPSN = srv.step(t, verbs.QPSRTS).SQPSN
	}
	ap := verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1, RetryCount: 7, RNRRetryCount: 7, PrivateData: []byte("remote_info")}
	if srvManual {
		ap.QPNum = srv.qp.Num()
	}
	must(t, srv.id.Accept(ap))
	if !srvManual {
		a, err := srv.qp.Query()
		must(t, err)
		srvSQPSN = a.SQPSN
	}
	if cliManual {
		ev := waitEvent(t, cli.ch, verbs.EventConnectResponse)
		if ev.QPNum != srv.qp.Num() || string(ev.PrivateData[:11]) != "remote_info" {
			t.Fatalf("CONNECT_RESPONSE qp_num 0x%x private %q", ev.QPNum, ev.PrivateData[:11])
		}
		rtr := cli.step(t, verbs.QPSRTR)
		if rtr.DestQPNum != srv.qp.Num() || rtr.RQPSN != srvSQPSN {
			t.Fatalf("client RTR dest 0x%x rq_psn 0x%x; server QP 0x%x sq_psn 0x%x", rtr.DestQPNum, rtr.RQPSN, srv.qp.Num(), srvSQPSN)
		}
		cli.step(t, verbs.QPSRTS)
		noEvent(t, srv.ch, 20*time.Millisecond) // no RTU yet
		must(t, cli.id.Establish())
		wantErrno(t, cli.id.Establish(), "rdma_establish", errEINVAL)
		noEvent(t, cli.ch, 50*time.Millisecond) // the active side gets no ESTABLISHED
	} else {
		waitEvent(t, cli.ch, verbs.EventEstablished)
	}
	waitEvent(t, srv.ch, verbs.EventEstablished)
	for _, s := range []*mside{srv, cli} {
		if st := qpState(t, s.qp); st != verbs.QPSRTS {
			t.Fatalf("QP in %s", st)
		}
	}

	// WRITE client -> server, then SEND into the server's RECV.
	msg := []byte("hello from a hand-made QP")
	must(t, cli.mrs[0].Write(0, msg))
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 10, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled, SGList: sge(cli.mrs[0], 0, len(msg)),
		RemoteAddr: srv.mrs[0].Addr(), RKey: srv.mrs[0].RKey()}))
	wantStatus(t, pollN(t, cli.cq, 1)[0], 10, verbs.WCSuccess)
	got, err := srv.mrs[0].Read(0, len(msg))
	must(t, err)
	if string(got) != string(msg) {
		t.Fatalf("server buffer %q", got)
	}
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 11, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(cli.mrs[0], 0, 5)}))
	wantStatus(t, pollN(t, cli.cq, 1)[0], 11, verbs.WCSuccess)
	wantStatus(t, pollN(t, srv.cq, 1)[0], 1, verbs.WCSuccess)

	// rdma_disconnect leaves a QP the CM does not own alone.
	must(t, cli.id.Disconnect())
	waitEvent(t, srv.ch, verbs.EventDisconnected)
	must(t, srv.id.Disconnect())
	waitEvent(t, cli.ch, verbs.EventDisconnected)
	if cliManual {
		if st := qpState(t, cli.qp); st != verbs.QPSRTS {
			t.Errorf("manual client QP after rdma_disconnect: %s, want RTS (the CM does not own it)", st)
		}
	}
	if srvManual {
		if st := qpState(t, srv.qp); st != verbs.QPSRTS {
			t.Errorf("manual server QP after rdma_disconnect: %s, want RTS", st)
		}
	}
	if cliManual && srvManual {
		// The client's QP went to INIT before rdma_connect, so the CM gave
		// it qp_access_flags 0: the server may not WRITE into it, whatever
		// the MR allows (rxe NAKs: remote invalid request). The CM
		// connection is down, the QPs still talk.
		must(t, srv.qp.PostSend(verbs.SendWR{WRID: 20, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled, SGList: sge(srv.mrs[0], 0, 8),
			RemoteAddr: cli.mrs[0].Addr(), RKey: cli.mrs[0].RKey()}))
		wantStatus(t, pollN(t, srv.cq, 1)[0], 20, verbs.WCRemInvReqErr)
	}
	if cliManual {
		must(t, cli.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}, verbs.QPAttrState))
	}
	if !srvManual {
		wantErrno(t, srv.qp.Destroy(), "ibv_destroy_qp", errEINVAL) // rdma_create_qp's QP
	}
	cli.close(t)
	srv.close(t)
}

// A path MTU below the message size: the WRITE goes out as FIRST/MIDDLE/LAST.
func TestManualPathMTU(t *testing.T) {
	r := newRig(t)
	q := r.qp(t)
	bringTo(t, q, verbs.QPSRTS)
	a, err := q.Query()
	must(t, err)
	if a.PathMTU != 1024 || a.DestQPNum != 0x22 || a.SQPSN != 5 || a.RQPSN != 1 || !a.AH.IsGlobal {
		t.Fatalf("ibv_query_qp after bring-up: %+v", a)
	}
	// No CM connection behind dest_qp_num 0x22: nothing is sent, and
	// ibv_modify_qp(ERR) flushes the WR.
	mr, err := r.pd.RegMR(4096, verbs.AccessLocalWrite)
	must(t, err)
	must(t, q.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled, SGList: sge(mr, 0, 3000), RemoteAddr: 0x1000, RKey: 1}))
	a, _ = q.Query()
	if a.SQPSN != 8 {
		t.Errorf("sq_psn after a 3000-byte WRITE at path_mtu 1024: %d, want 5+3", a.SQPSN)
	}
	must(t, q.Modify(verbs.QPAttr{State: verbs.QPSErr}, verbs.QPAttrState))
	wantStatus(t, pollN(t, r.cq, 1)[0], 1, verbs.WCWRFlushErr)
	must(t, mr.Dereg())
}
