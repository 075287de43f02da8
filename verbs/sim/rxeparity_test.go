package sim

import (
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Where the simulated NIC once differed from Soft-RoCE, it now does what
// rxe does. Each test has a twin in verbs/rdmacore/rxeparity_test.go that
// measured rxe (Debian 6.1.0-57, rdma-core 44) in the QEMU guest.

// TestQueueCapsLikeRxe: queues hold what rxe_queue_init rounds them up
// to, and ibv_query_qp says so (twin: TestRxeQueueCaps).
func TestQueueCapsLikeRxe(t *testing.T) {
	for _, tt := range []struct{ asked, got uint32 }{{1, 1}, {2, 3}, {8, 15}, {16, 31}} {
		if d := rxeQueueDepth(tt.asked); d != tt.got {
			t.Errorf("rxeQueueDepth(%d) = %d, want %d", tt.asked, d, tt.got)
		}
	}
	p := New(Options{})
	dev := p.dev
	pdv, err := dev.AllocPD()
	must(t, err)
	for _, tt := range []struct{ asked, got int }{{1, 1}, {2, 3}, {8, 15}, {16, 31}} {
		c, err := dev.CreateCQ(tt.asked)
		must(t, err)
		if c.CQE() != tt.got {
			t.Errorf("ibv_create_cq(%d): cqe %d, want %d", tt.asked, c.CQE(), tt.got)
		}
		must(t, c.Destroy())
	}
	c, err := dev.CreateCQ(16)
	must(t, err)
	for _, tt := range []struct{ asked, got verbs.QPCap }{
		{verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}, verbs.QPCap{MaxSendWR: 15, MaxRecvWR: 15, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: 16}},
		{verbs.QPCap{MaxSendWR: 2, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}, verbs.QPCap{MaxSendWR: 3, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: 16}},
		{verbs.QPCap{MaxSendWR: 16, MaxRecvWR: 16, MaxSendSGE: 2, MaxRecvSGE: 2, MaxInlineData: 40}, verbs.QPCap{MaxSendWR: 31, MaxRecvWR: 31, MaxSendSGE: 2, MaxRecvSGE: 2, MaxInlineData: 40}},
	} {
		q, err := dev.CreateQP(pdv, verbs.QPInitAttr{SendCQ: c, RecvCQ: c, Type: verbs.QPTRC, Cap: tt.asked})
		must(t, err)
		a, err := q.Query()
		must(t, err)
		if a.Cap != tt.got {
			t.Errorf("cap %+v: ibv_query_qp says %+v, want %+v", tt.asked, a.Cap, tt.got)
		}
		must(t, q.Destroy())
	}
	must(t, c.Destroy())
	must(t, pdv.Dealloc())
}

// TestCQOverrun: a completion that does not fit is lost. A send completion
// leaves the QP in RTS and the CQ usable; a receive completion puts the
// receiver's QP in ERR (twins: TestRxeSendCQOverflow, TestRxeRecvCQOverflow).
func TestCQOverrun(t *testing.T) {
	for _, tt := range []struct {
		name     string
		recvSide bool
	}{
		{"send completions", false},
		{"receive completions", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{cqe: 1, connect: verbs.ConnParam{RNRRetryCount: 7}})
			remote := srv.regMR(t, 64, rwAccess)
			local := cli.regMR(t, 64, verbs.AccessLocalWrite)
			if tt.recvSide {
				for i := range 3 {
					must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: uint64(100 + i), SGList: sge(remote, 0, 16)}))
				}
			}
			post := func(id uint64) {
				wr := verbs.SendWR{WRID: id, Opcode: verbs.WRRDMAWrite, SGList: sge(local, 0, 8), RemoteAddr: remote.Addr(), RKey: remote.RKey(), Flags: verbs.SendSignaled}
				if tt.recvSide {
					wr.Opcode, wr.Flags = verbs.WRSend, 0
				}
				must(t, cli.qp.PostSend(wr))
			}
			for i := range 3 {
				post(uint64(i))
			}
			if tt.recvSide {
				waitState(t, srv.qp, verbs.QPSErr)
				wantStatus(t, pollN(t, srv.cq, 1)[0], 100, verbs.WCSuccess)
				noMore(t, srv.cq)
				return
			}
			time.Sleep(100 * time.Millisecond)
			wantStatus(t, pollN(t, cli.cq, 1)[0], 0, verbs.WCSuccess)
			noMore(t, cli.cq)
			if st := qpState(t, cli.qp); st != verbs.QPSRTS {
				t.Fatalf("sender's QP %s after its CQ overflowed, want RTS", st)
			}
			post(9)
			wantStatus(t, pollN(t, cli.cq, 1)[0], 9, verbs.WCSuccess)
		})
	}
}

func waitState(t testing.TB, q verbs.QP, want verbs.QPState) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); qpState(t, q) != want; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("QP never reached %s: %s", want, qpState(t, q))
		}
	}
}

// TestRecvBufferNotWritable: a SEND into a RECV whose buffer cannot be
// written completes the RECV with local QP operation error (rxe's
// send_data_in: ERR_MALFORMED_WQE, class A), NAKs the SEND as a remote
// operation error and puts both QPs in ERR (twin: TestRxeRecvWithoutLocalWrite).
// An SGE longer than its MR fails only when the SEND's bytes go past the
// MR's end: rxe checks the range of what it copies (TestEditTableOnRealVerbs:
// post-recv.length=4096 on a 128-byte MR takes a 16-byte SEND).
func TestRecvBufferNotWritable(t *testing.T) {
	for _, tt := range []struct {
		name string
		sge  func(ro, rw verbs.MR) []verbs.SGE
		send int
	}{
		{"MR without LOCAL_WRITE", func(ro, _ verbs.MR) []verbs.SGE { return sge(ro, 0, 64) }, 16},
		{"wrong lkey", func(_, rw verbs.MR) []verbs.SGE { s := sge(rw, 0, 64); s[0].LKey++; return s }, 16},
		{"SEND past the MR's end", func(_, rw verbs.MR) []verbs.SGE { return sge(rw, 32, 64) }, 40},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{})
			ro, rw := srv.regMR(t, 64, 0), srv.regMR(t, 64, verbs.AccessLocalWrite)
			local := cli.regMR(t, 64, 0)
			must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 7, SGList: tt.sge(ro, rw)}))
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: 8, Opcode: verbs.WRSend, SGList: sge(local, 0, tt.send)}))
			wantStatus(t, pollN(t, srv.cq, 1)[0], 7, verbs.WCLocQPOpErr)
			wantStatus(t, pollN(t, cli.cq, 1)[0], 8, verbs.WCRemOpErr)
			waitState(t, srv.qp, verbs.QPSErr)
			waitState(t, cli.qp, verbs.QPSErr)
		})
	}
}

// TestRecvPostedInErr: a RECV posted to a QP in ERR is accepted and stays
// queued until something runs the responder again: the next move to ERR,
// by ibv_modify_qp or by rdma_disconnect (twin: TestRxeRecvWithoutLocalWrite).
func TestRecvPostedInErr(t *testing.T) {
	for _, tt := range []struct {
		name  string
		rerun func(t *testing.T, s *side)
	}{
		{"ibv_modify_qp(IBV_QPS_ERR)", func(t *testing.T, s *side) {
			must(t, s.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}, verbs.QPAttrState))
		}},
		{"rdma_disconnect", func(t *testing.T, s *side) { must(t, s.id.Disconnect()) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{})
			_ = cli
			mr := srv.regMR(t, 64, verbs.AccessLocalWrite)
			srv.qp.(*qp).toErr()
			must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 5, SGList: sge(mr, 0, 8)}))
			noMore(t, srv.cq)
			if a, _ := srv.qp.Query(); a.OutstandingRQ != 1 {
				t.Fatalf("outstanding RQ %d, want the RECV queued", a.OutstandingRQ)
			}
			tt.rerun(t, srv)
			wantStatus(t, pollN(t, srv.cq, 1)[0], 5, verbs.WCWRFlushErr)
		})
	}
}

// TestRetryCnt7RetriesForever: rxe's completer never counts a retry_cnt
// of 7 down (rxe_comp.c rxe_completer, COMPST_ERROR_RETRY), whether the
// retry follows an ACK timeout or a PSN sequence error NAK; 6 runs out.
func TestRetryCnt7RetriesForever(t *testing.T) {
	for _, tt := range []struct {
		retry   uint8
		forever bool
	}{{6, false}, {7, true}} {
		t.Run("ACK timeouts, retry_cnt "+string(rune('0'+tt.retry)), func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{connect: verbs.ConnParam{RetryCount: tt.retry}, noCleanup: true})
			target := srv.regMR(t, 64, rwAccess)
			local := cli.regMR(t, 64, verbs.AccessLocalWrite)
			must(t, srv.id.Disconnect())
			waitEvent(t, cli.ch, verbs.EventDisconnected)
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: 7, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
				SGList: sge(local, 0, 8), RemoteAddr: target.Addr(), RKey: target.RKey()}))
			// Eight ACK timeouts of 67 ms and more: 6 has run out by then.
			time.Sleep(800 * time.Millisecond)
			wcs, err := cli.cq.Poll(1)
			must(t, err)
			if tt.forever && len(wcs) != 0 {
				t.Fatalf("retry_cnt 7 gave up: %+v", wcs)
			}
			if !tt.forever {
				if len(wcs) != 1 {
					wcs = pollN(t, cli.cq, 1)
				}
				wantStatus(t, wcs[0], 7, verbs.WCRetryExcErr)
			}
			teardown(t, srv, cli)
		})
	}
	// A sequence NAK starts a retry only when none has started since the
	// last ACK (rxe's comp.started_retry), so NAKs alone cannot count a
	// budget down; lost packets can: nine losses of the WRITE are nine
	// ACK timeouts, and retry_cnt 7 resends a tenth time.
	t.Run("nine lost WRITEs, retry_cnt 7", func(t *testing.T) {
		srv, cli := connectPair(t, pairCfg{connect: verbs.ConnParam{RetryCount: 7}})
		target := srv.regMR(t, 64, rwAccess)
		local := cli.regMR(t, 64, verbs.AccessLocalWrite)
		must(t, cli.qp.(verbs.WireImpairer).ImpairWire(verbs.WireFaults{Drop: []int{1, 2, 3, 4, 5, 6, 7, 8, 9}}))
		must(t, cli.qp.PostSend(verbs.SendWR{WRID: 7, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
			SGList: sge(local, 0, 8), RemoteAddr: target.Addr(), RKey: target.RKey()}))
		wantStatus(t, pollN(t, cli.cq, 1)[0], 7, verbs.WCSuccess)
		if c, _ := cli.qp.(*qp).dev.QPCounters(cli.qp.Num()); c["completer_retry_err"] != 9 {
			t.Errorf("completer_retry_err = %d, want 9", c["completer_retry_err"])
		}
	})
}
