package sim

import (
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// The twins of verbs/rdmacore/sqdepth_test.go: what rxe was measured to
// do with a small send queue and with inline data.

var smallSQ = verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}

// postWrites posts n unsignaled 8-byte WRITEs and says how many went in
// before the first error, and its errno.
func postWrites(cli *side, local, remote verbs.MR, first uint64, n int) (int, syscall.Errno) {
	for i := range n {
		err := cli.qp.PostSend(verbs.SendWR{WRID: first + uint64(i), Opcode: verbs.WRRDMAWrite, SGList: sge(local, 0, 8),
			RemoteAddr: remote.Addr(), RKey: remote.RKey()})
		if err != nil {
			return i, err.(*verbs.Error).Errno
		}
	}
	return n, 0
}

// waitDrained waits until the QP has no WR outstanding on its send queue.
func waitDrained(t *testing.T, q verbs.QP) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		a, err := q.Query()
		must(t, err)
		if a.OutstandingSQ == 0 {
			return
		}
	}
	t.Fatal("send queue never drained")
}

// A head that cannot complete keeps its slot and every slot behind it: a
// SEND in RNR retry for ever (no RECV at the server, rnr_retry 7) and six
// WRITEs fill seven slots, and ibv_post_send is ENOMEM until the SEND
// completes; then the queue drains without a poll. Measured:
// TestRxeSendQueueFullBehindRNR, which connects with retry_count 7 as
// this does: the WRITEs behind the SEND reach the responder out of
// sequence and draw a PSN sequence error NAK, and with retry_count 0 one
// such NAK that comes before the round's RNR NAK ends the SEND in
// transport retry counter exceeded (1 run in 10 under -race here).
func TestSQFullBehindRNR(t *testing.T) {
	connect, accept := verbs.ConnParam{RetryCount: 7, RNRRetryCount: 7}, verbs.ConnParam{RNRRetryCount: 7}
	srv, cli := connectPair(t, pairCfg{caps: smallSQ, connect: connect, accept: accept})
	remote, local := srv.regMR(t, 4096, rwAccess), cli.regMR(t, 64, verbs.AccessLocalWrite)
	recvBuf := srv.regMR(t, 64, verbs.AccessLocalWrite)
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(local, 0, 8)}))
	time.Sleep(50 * time.Millisecond)
	if n, errno := postWrites(cli, local, remote, 10, 28); n != 6 || errno != syscall.ENOMEM {
		t.Fatalf("behind the SEND: %d WRITEs, then %v; want 6 then ENOMEM", n, errno)
	}
	time.Sleep(300 * time.Millisecond)
	if n, errno := postWrites(cli, local, remote, 100, 1); n != 0 || errno != syscall.ENOMEM {
		t.Fatalf("300 ms later: %d, %v; want still ENOMEM", n, errno)
	}
	must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 5, SGList: sge(recvBuf, 0, 64)}))
	wantStatus(t, pollN(t, cli.cq, 1)[0], 1, verbs.WCSuccess)
	waitDrained(t, cli.qp)
	if n, errno := postWrites(cli, local, remote, 200, 7); n != 7 {
		t.Fatalf("after the SEND completed: %d, %v; want a free queue", n, errno)
	}
}

// Inline: what rxe grants and refuses at create time, and that the lkey
// of an inline SGE is not read. Measured: TestRxeInlineLimits.
func TestInlineLikeRxe(t *testing.T) {
	srv, cli := connectPair(t, pairCfg{caps: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: 64}})
	dev := cli.id.Device()
	for _, tt := range []struct{ asked, granted, sge uint32 }{
		{0, 16, 1}, {1, 16, 1}, {17, 17, 1}, {64, 64, 4}, {100, 100, 6}, {401, 401, 25}, {512, 512, 32}, {1024, 0, 0},
	} {
		c := verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: tt.asked}
		qp, err := dev.CreateQP(cli.pd, verbs.QPInitAttr{SendCQ: cli.cq, RecvCQ: cli.cq, Type: verbs.QPTRC, Cap: c})
		if tt.granted == 0 {
			wantErrno(t, err, "ibv_create_qp", syscall.EINVAL)
			continue
		}
		must(t, err)
		a, err := qp.Query()
		must(t, err)
		if a.Cap.MaxInlineData != tt.granted || a.Cap.MaxSendSGE != tt.sge {
			t.Errorf("max_inline_data %d: granted %d inline, %d SGEs; want %d, %d", tt.asked, a.Cap.MaxInlineData, a.Cap.MaxSendSGE, tt.granted, tt.sge)
		}
		must(t, qp.Destroy())
	}
	remote, local := srv.regMR(t, 4096, rwAccess), cli.regMR(t, 128, verbs.AccessLocalWrite)
	msg := []byte("inline-payload-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+-*/")
	must(t, local.Write(0, msg))
	for _, tt := range []struct {
		n     int
		lkey  uint32
		errno syscall.Errno
	}{{64, 0, 0}, {8, 0xdeadbeef, 0}, {65, local.LKey(), syscall.EINVAL}} {
		must(t, remote.Write(0, make([]byte, 128)))
		err := cli.qp.PostSend(verbs.SendWR{WRID: 7, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled | verbs.SendInline,
			SGList: []verbs.SGE{{Addr: local.Addr(), Length: uint32(tt.n), LKey: tt.lkey}}, RemoteAddr: remote.Addr(), RKey: remote.RKey()})
		if tt.errno != 0 {
			wantErrno(t, err, "ibv_post_send", tt.errno)
			if st := qpState(t, cli.qp); st != verbs.QPSRTS {
				t.Errorf("QP %s after the refused post, want RTS", st)
			}
			continue
		}
		must(t, err)
		wantStatus(t, pollN(t, cli.cq, 1)[0], 7, verbs.WCSuccess)
		got, err := remote.Read(0, tt.n)
		must(t, err)
		if string(got) != string(msg[:tt.n]) {
			t.Errorf("inline %d bytes lkey 0x%x landed %q", tt.n, tt.lkey, got)
		}
	}
}
