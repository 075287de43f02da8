//go:build linux && cgo

package rdmacore

import (
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// The send queue's depth, unsignaled WRs and inline data, as rxe answers
// them (issue 25 items 2 and 3). Each FACT has a twin in
// verbs/sim/sqdepth_test.go. Needs a device (the QEMU guest).

// writeWR is an 8-byte WRITE of the client's data MR into the server's.
func writeWR(pr *pair, id uint64, flags verbs.SendFlags) verbs.SendWR {
	return verbs.SendWR{WRID: id, Opcode: verbs.WRRDMAWrite, Flags: flags,
		SGList:     []verbs.SGE{{Addr: pr.cli.data.Addr(), Length: 8, LKey: pr.cli.data.LKey()}},
		RemoteAddr: pr.srv.data.Addr(), RKey: pr.srv.data.RKey()}
}

// postUntilFull posts unsignaled WRITEs back to back, at most max, and
// says how many went in before the first error and which errno that was.
func postUntilFull(pr *pair, first uint64, max int) (int, syscall.Errno) {
	for i := range max {
		if err := pr.cli.qp.PostSend(writeWR(pr, first+uint64(i), 0)); err != nil {
			return i, errnoOf(err)
		}
	}
	return max, 0
}

func TestRxeSendQueueNeverSignaled(t *testing.T) {
	p := open(t)
	o := defaults()
	o.cliCap = verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}
	pr := connect(t, p, rdmaAddr(t, p), o)
	slots := int(must(pr.cli.qp.Query())(t).Cap.MaxSendWR)
	t.Logf("FACT max_send_wr 4 asked: %d granted", slots)

	start := time.Now()
	n, errno := postUntilFull(pr, 0, 8*slots)
	t.Logf("FACT back to back, unsignaled, never polled: %d of %d posted before %v (%v)", n, 8*slots, errno, time.Since(start))
	// Over a wire the ACKs take longer than the posts: the assertion is on
	// batches of a full queue, each after a pause (the sim's twin waits
	// for the queue to drain).
	for batch := range 4 {
		time.Sleep(50 * time.Millisecond)
		if n, errno := postUntilFull(pr, uint64(1000*(batch+1)), slots); n != slots {
			t.Errorf("batch %d, no poll: %d of %d posted, then %v", batch, n, slots, errno)
		}
	}
	time.Sleep(100 * time.Millisecond)
	wcs := pollFor(pr.cli.cq, 100*time.Millisecond)
	t.Logf("FACT completions of the unsignaled WRITEs: %d", len(wcs))
	if len(wcs) != 0 {
		t.Errorf("unsignaled WRITEs completed: %+v", wcs)
	}
	pr.cli.post(t, writeWR(pr, 9999, verbs.SendSignaled))
	wc := waitWC(t, pr.cli.cq)
	t.Logf("FACT then one signaled WRITE: %+v (%s)", wc, wc.Status)
	if slots != 7 || wc.WRID != 9999 || wc.Status != verbs.WCSuccess {
		t.Errorf("%d slots, last WRITE %+v; want 7 and success", slots, wc)
	}
}

// A WR the responder cannot finish keeps every WR behind it in the queue:
// a SEND with no RECV posted at the server and rnr_retry 7 (retry for
// ever) holds the head, and the WRITEs after it fill the queue.
func TestRxeSendQueueFullBehindRNR(t *testing.T) {
	p := open(t)
	o := defaults()
	o.srvRecvs = 0
	o.cliCap = verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}
	pr := connect(t, p, rdmaAddr(t, p), o)
	slots := int(must(pr.cli.qp.Query())(t).Cap.MaxSendWR)
	pr.cli.post(t, verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: pr.cli.msg.Addr(), Length: 8, LKey: pr.cli.msg.LKey()}}})
	time.Sleep(100 * time.Millisecond)
	n, errno := postUntilFull(pr, 10, 4*slots)
	t.Logf("FACT behind a SEND in RNR retry, %d slots: %d WRITEs posted, then %v", slots, n, errno)
	time.Sleep(300 * time.Millisecond)
	n2, errno2 := postUntilFull(pr, 100, 4*slots)
	t.Logf("FACT 300 ms later: %d more, then %v; QP %s", n2, errno2, must(pr.cli.qp.Query())(t).State)
	noErr(t, pr.srv.qp.PostRecv(verbs.RecvWR{WRID: 5, SGList: []verbs.SGE{{Addr: pr.srv.msg.Addr(), Length: 128, LKey: pr.srv.msg.LKey()}}}))
	wc := waitWC(t, pr.cli.cq)
	t.Logf("FACT RECV posted: the SEND completes %s", wc.Status)
	time.Sleep(100 * time.Millisecond)
	n3, errno3 := postUntilFull(pr, 200, 4*slots)
	t.Logf("FACT then, still unpolled: %d more, then %v", n3, errno3)
	if n != slots-1 || errno != syscall.ENOMEM || n2 != 0 || errno2 != syscall.ENOMEM || wc.Status != verbs.WCSuccess || n3 < slots {
		t.Errorf("want %d WRITEs then ENOMEM, still ENOMEM later, the SEND's success, then a free queue", slots-1)
	}
}

func TestRxeInlineLimits(t *testing.T) {
	p := open(t)
	o := defaults()
	o.cliCap = verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: 64}
	pr := connect(t, p, rdmaAddr(t, p), o)
	dev := pr.cli.id.Device()
	cq := must(dev.CreateCQ(16))(t)
	defer func() { noErr(t, cq.Destroy()) }()
	for _, in := range []uint32{0, 1, 16, 17, 64, 100, 256, 400, 401, 512, 513, 1024, 4096} {
		qp, err := dev.CreateQP(pr.cli.pd, verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq, Type: verbs.QPTRC,
			Cap: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1, MaxInlineData: in}})
		if err != nil {
			t.Logf("FACT ibv_create_qp max_inline_data %d: %v", in, err)
			if in <= 512 || errnoOf(err) != syscall.EINVAL {
				t.Errorf("max_inline_data %d refused (%v); want EINVAL above 512 only", in, err)
			}
			continue
		}
		granted := must(qp.Query())(t).Cap
		t.Logf("FACT ibv_create_qp max_inline_data %d: granted %+v", in, granted)
		if want := max(in, 16); in > 512 || granted.MaxInlineData != want || granted.MaxSendSGE != want/16 {
			t.Errorf("max_inline_data %d granted %+v; want %d inline, %d SGEs", in, granted, want, want/16)
		}
		noErr(t, qp.Destroy())
	}
	got := must(pr.cli.qp.Query())(t).Cap.MaxInlineData
	t.Logf("FACT rdma_create_qp max_inline_data 64: granted %d", got)
	msg := []byte("inline-payload-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+-*/")
	noErr(t, pr.cli.data.Write(0, msg))
	for _, c := range []struct {
		name  string
		n     uint32
		lkey  uint32
		flags verbs.SendFlags
	}{
		{"inline at the limit, lkey 0", got, 0, verbs.SendInline},
		{"inline, bogus lkey", 8, 0xdeadbeef, verbs.SendInline},
		{"inline one over the limit", got + 1, pr.cli.data.LKey(), verbs.SendInline},
		{"not inline, lkey 0", 8, 0, 0},
	} {
		noErr(t, pr.srv.data.Write(0, make([]byte, 256)))
		wr := verbs.SendWR{WRID: 7, Opcode: verbs.WRRDMAWrite, Flags: c.flags | verbs.SendSignaled,
			SGList:     []verbs.SGE{{Addr: pr.cli.data.Addr(), Length: c.n, LKey: c.lkey}},
			RemoteAddr: pr.srv.data.Addr(), RKey: pr.srv.data.RKey()}
		if err := pr.cli.qp.PostSend(wr); err != nil {
			st := must(pr.cli.qp.Query())(t).State
			t.Logf("FACT %s (%d bytes): ibv_post_send %v (%v); QP %s", c.name, c.n, errnoOf(err), err, st)
			if c.flags == 0 || c.n <= got || errnoOf(err) != syscall.EINVAL || st != verbs.QPSRTS {
				t.Errorf("%s: %v, QP %s; want EINVAL over the limit only, the QP still RTS", c.name, err, st)
			}
			continue
		}
		wc := waitWC(t, pr.cli.cq)
		landed := must(pr.srv.data.Read(0, int(c.n)))(t)
		t.Logf("FACT %s (%d bytes): %s; landed %q; QP %s", c.name, c.n, wc.Status, landed, must(pr.cli.qp.Query())(t).State)
		if c.flags != 0 && (wc.Status != verbs.WCSuccess || string(landed) != string(msg[:c.n])) {
			t.Errorf("%s: %s, landed %q; want success and the bytes", c.name, wc.Status, landed)
		}
		if wc.Status != verbs.WCSuccess {
			break
		}
	}
}

// Which status a bad local SGE gets on rxe: a key that finds no MR is
// local QP operation error (rxe_mr.c copy_data: lookup_mr fails, -EINVAL,
// which rxe_req.c turns into IB_WC_LOC_QP_OP_ERR), a good key with a bad
// range or too little access local protection error (-EFAULT). Measured:
// lkey 0 and lkey+1 the first, past the end and a READ into an MR
// without LOCAL_WRITE the second. Twin: verbs/sim TestLocalErrors.
func TestRxeLocalSGEErrors(t *testing.T) {
	p := open(t)
	for _, c := range []struct {
		name string
		wr   func(t *testing.T, pr *pair) verbs.SendWR
		want verbs.WCStatus
	}{
		{"WRITE, lkey 0", func(_ *testing.T, pr *pair) verbs.SendWR {
			w := writeWR(pr, 1, verbs.SendSignaled)
			w.SGList[0].LKey = 0
			return w
		}, verbs.WCLocQPOpErr},
		{"WRITE, lkey+1", func(_ *testing.T, pr *pair) verbs.SendWR {
			w := writeWR(pr, 1, verbs.SendSignaled)
			w.SGList[0].LKey++
			return w
		}, verbs.WCLocQPOpErr},
		{"WRITE, SGE past the MR's end", func(_ *testing.T, pr *pair) verbs.SendWR {
			w := writeWR(pr, 1, verbs.SendSignaled)
			w.SGList[0].Addr += 4090
			return w
		}, verbs.WCLocProtErr},
		{"READ into an MR without LOCAL_WRITE", func(t *testing.T, pr *pair) verbs.SendWR {
			ro := must(pr.cli.pd.RegMR(64, 0))(t)
			t.Cleanup(func() { _ = ro.Dereg() })
			return verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMARead, Flags: verbs.SendSignaled,
				SGList:     []verbs.SGE{{Addr: ro.Addr(), Length: 8, LKey: ro.LKey()}},
				RemoteAddr: pr.srv.data.Addr(), RKey: pr.srv.data.RKey()}
		}, verbs.WCLocProtErr},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr := connect(t, p, rdmaAddr(t, p), defaults())
			pr.cli.post(t, c.wr(t, pr))
			wc := waitWC(t, pr.cli.cq)
			t.Logf("FACT %s: %s (vendor_err 0x%x); QP %s", c.name, wc.Status, wc.VendorErr, must(pr.cli.qp.Query())(t).State)
			if wc.Status != c.want {
				t.Errorf("%s: %s, want %s", c.name, wc.Status, c.want)
			}
		})
	}
}
