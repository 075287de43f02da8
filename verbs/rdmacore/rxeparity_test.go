//go:build linux && cgo

package rdmacore

import (
	"context"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// What rxe does where the simulated NIC once differed; each has a twin in
// verbs/sim/rxeparity_test.go that asserts the same. Needs a device (the
// QEMU guest); skips otherwise. Lines starting FACT are the measurement.

// rxeQueueSlots is rxe_queue_init's rule: a ring of the next power of two
// above n, one slot kept empty.
func rxeQueueSlots(n uint32) uint32 {
	s := uint32(1)
	for s < n+1 {
		s <<= 1
	}
	return s - 1
}

func TestRxeQueueCaps(t *testing.T) {
	p := open(t)
	pr := connect(t, p, rdmaAddr(t, p), defaults())
	dev := pr.cli.id.Device()
	for _, n := range []int{1, 2, 8, 16} {
		cq := must(dev.CreateCQ(n))(t)
		t.Logf("FACT ibv_create_cq(cqe=%d): cq->cqe %d", n, cq.CQE())
		noErr(t, cq.Destroy())
	}
	cq := must(dev.CreateCQ(16))(t)
	defer func() { noErr(t, cq.Destroy()) }()
	for _, c := range []verbs.QPCap{
		{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1},
		{MaxSendWR: 2, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1},
		{MaxSendWR: 16, MaxRecvWR: 16, MaxSendSGE: 2, MaxRecvSGE: 2, MaxInlineData: 40},
	} {
		qp := must(dev.CreateQP(pr.cli.pd, verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq, Type: verbs.QPTRC, Cap: c}))(t)
		got := must(qp.Query())(t).Cap
		t.Logf("FACT ibv_create_qp cap %+v: ibv_query_qp cap %+v", c, got)
		if got.MaxSendWR != rxeQueueSlots(c.MaxSendWR) || got.MaxRecvWR != rxeQueueSlots(c.MaxRecvWR) {
			t.Errorf("cap %+v, want rxe_queue_init's round-up of %+v", got, c)
		}
		noErr(t, qp.Destroy())
	}
	t.Logf("FACT rdma_create_qp cap 32/32: ibv_query_qp cap %+v", must(pr.cli.qp.Query())(t).Cap)
}

// pollFor polls cq for d and returns what came.
func pollFor(cq verbs.CQ, d time.Duration) []verbs.WC {
	var out []verbs.WC
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		wcs, _ := cq.Poll(16)
		out = append(out, wcs...)
	}
	return out
}

func TestRxeRecvWithoutLocalWrite(t *testing.T) {
	p := open(t)
	o := defaults()
	o.srvRecvs = 0
	pr := connect(t, p, rdmaAddr(t, p), o)
	cli, srv := &pr.cli, &pr.srv
	ro := must(srv.pd.RegMR(128, 0))(t)
	defer func() { noErr(t, ro.Dereg()) }()
	noErr(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 7, SGList: []verbs.SGE{{Addr: ro.Addr(), Length: 128, LKey: ro.LKey()}}}))
	cli.post(t, verbs.SendWR{WRID: 8, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: cli.msg.Addr(), Length: 16, LKey: cli.msg.LKey()}}})
	rwc, swc := waitWC(t, srv.cq), waitWC(t, cli.cq)
	t.Logf("FACT RECV into an MR without LOCAL_WRITE: server %q, client %q; server QP %s, client QP %s",
		rwc.Status, swc.Status, must(srv.qp.Query())(t).State, must(cli.qp.Query())(t).State)
	if rwc.Status != verbs.WCLocQPOpErr || swc.Status != verbs.WCRemOpErr {
		t.Errorf("server %s client %s, want local QP operation error / remote operation error", rwc.Status, swc.Status)
	}

	// The server's QP is in ERR now: a RECV posted to it.
	noErr(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 9, SGList: []verbs.SGE{{Addr: srv.msg.Addr(), Length: 128, LKey: srv.msg.LKey()}}}))
	late := pollFor(srv.cq, time.Second)
	t.Logf("FACT RECV posted in ERR: %d completions within 1 s: %+v", len(late), late)
	if len(late) == 0 {
		err := srv.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}, verbs.QPAttrState)
		late = pollFor(srv.cq, time.Second)
		t.Logf("FACT after ibv_modify_qp(ERR) again (err %v): %d completions: %+v", err, len(late), late)
	}
	if len(late) != 1 || late[0].WRID != 9 || late[0].Status != verbs.WCWRFlushErr {
		t.Errorf("RECV posted in ERR: %+v, want one flush error for wr_id 9", late)
	}
}

func TestRxeSendCQOverflow(t *testing.T) {
	p := open(t)
	o := defaults()
	o.cliCQE = 1
	pr := connect(t, p, rdmaAddr(t, p), o)
	cli, srv := &pr.cli, &pr.srv
	t.Logf("FACT client CQ cqe %d", cli.cq.CQE())
	write := func(id uint64) {
		cli.post(t, verbs.SendWR{WRID: id, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
			SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 8, LKey: cli.data.LKey()}},
			RemoteAddr: srv.data.Addr(), RKey: srv.data.RKey()})
	}
	n := cli.cq.CQE() + 2
	for i := range n {
		write(uint64(i))
	}
	time.Sleep(time.Second)
	st := must(cli.qp.Query())(t).State
	got := pollFor(cli.cq, 200*time.Millisecond)
	t.Logf("FACT %d signaled WRITEs into a CQ of %d: QP %s, polled %+v", n, cli.cq.CQE(), st, got)
	if st != verbs.QPSRTS || len(got) != cli.cq.CQE() {
		t.Errorf("QP %s, %d completions; want RTS and the CQ's %d (the rest dropped)", st, len(got), cli.cq.CQE())
	}
	write(100)
	wc := waitWC(t, cli.cq)
	t.Logf("FACT the next WRITE after polling: %+v (%s)", wc, wc.Status)
	if wc.WRID != 100 || wc.Status != verbs.WCSuccess {
		t.Errorf("next WRITE: %+v, want success", wc)
	}
}

func TestRxeRecvCQOverflow(t *testing.T) {
	p := open(t)
	o := defaults()
	o.srvCQE, o.srvRecvs = 1, 3
	pr := connect(t, p, rdmaAddr(t, p), o)
	cli, srv := &pr.cli, &pr.srv
	t.Logf("FACT server CQ cqe %d", srv.cq.CQE())
	n := srv.cq.CQE() + 1
	for i := range n {
		cli.post(t, verbs.SendWR{WRID: uint64(i), Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
			SGList: []verbs.SGE{{Addr: cli.msg.Addr(), Length: 16, LKey: cli.msg.LKey()}}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for ctx.Err() == nil && must(srv.qp.Query())(t).State != verbs.QPSErr {
		time.Sleep(20 * time.Millisecond)
	}
	st := must(srv.qp.Query())(t).State
	got := pollFor(srv.cq, 200*time.Millisecond)
	t.Logf("FACT %d SENDs into a receive CQ of %d: server QP %s, polled %+v; client QP %s",
		n, srv.cq.CQE(), st, got, must(cli.qp.Query())(t).State)
	if st != verbs.QPSErr {
		t.Errorf("server QP %s, want ERR", st)
	}
}

// TestRxeRetryCnt7: the peer's QP in ERR drops every request, so nothing
// is acknowledged; with retry_cnt 7 rxe's completer never counts down
// (rxe_comp.c rxe_completer, COMPST_ERROR_RETRY), and the WRITE is still
// outstanding well after the (7+1) ACK timeouts a count-down would take.
func TestRxeRetryCnt7(t *testing.T) {
	p := open(t)
	pr := connect(t, p, rdmaAddr(t, p), defaults()) // retry_count 7
	cli, srv := &pr.cli, &pr.srv
	a := must(cli.qp.Query())(t)
	timeout := time.Duration(4096<<a.Timeout) * time.Nanosecond
	wait := min(9*timeout+time.Second, 30*time.Second)
	t.Logf("FACT client QP retry_cnt %d timeout %d (%v); waiting %v", a.RetryCnt, a.Timeout, timeout, wait)
	noErr(t, srv.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}, verbs.QPAttrState))
	cli.post(t, verbs.SendWR{WRID: 11, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 8, LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr(), RKey: srv.data.RKey()})
	got := pollFor(cli.cq, wait)
	t.Logf("FACT retry_cnt 7, peer QP in ERR: after %v, completions %+v, client QP %s", wait, got, must(cli.qp.Query())(t).State)
	if a.RetryCnt == 7 && 8*timeout < wait && len(got) != 0 {
		t.Errorf("retry_cnt 7 gave up: %+v", got)
	}
}

// TestRxeRecvTooSmall: a SEND larger than the RECV's buffer.
func TestRxeRecvTooSmall(t *testing.T) {
	p := open(t)
	o := defaults()
	o.srvRecvs = 0
	pr := connect(t, p, rdmaAddr(t, p), o)
	cli, srv := &pr.cli, &pr.srv
	noErr(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 7, SGList: []verbs.SGE{{Addr: srv.msg.Addr(), Length: 8, LKey: srv.msg.LKey()}}}))
	cli.post(t, verbs.SendWR{WRID: 8, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: cli.msg.Addr(), Length: 16, LKey: cli.msg.LKey()}}})
	rwc, swc := waitWC(t, srv.cq), waitWC(t, cli.cq)
	t.Logf("FACT 16-byte SEND into an 8-byte RECV: server %+v (%s), client %q; server QP %s, client QP %s",
		rwc, rwc.Status, swc.Status, must(srv.qp.Query())(t).State, must(cli.qp.Query())(t).State)
	// Not local length error / remote invalid request error, as hardware:
	// rxe's copy_data fails with -EINVAL, which send_data_in treats as a
	// malformed WQE. Twin: TestLocalErrors/RECV_too_small in verbs/sim.
	if rwc.Status != verbs.WCLocQPOpErr || swc.Status != verbs.WCRemOpErr {
		t.Errorf("server %s client %s, want local QP operation error / remote operation error", rwc.Status, swc.Status)
	}
}
