//go:build linux && cgo

package rdmacore

import (
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// What rxe does with a shared receive queue; the twin is
// verbs/sim/srq_test.go. Lines starting FACT are the measurement.
//
// The --srq workshop room rests on the answers: may a QP use an SRQ made
// in another PD, and whose PD does a RECV's lkey then answer to?

// srqIn makes an SRQ in a PD of its own on dev (pdOfSRQ) and an MR the
// RECVs point at, in the SRQ's PD or in bufPD when it is not nil, with
// n RECVs posted; free undoes it all.
func srqIn(dev verbs.Device, bufPD verbs.PD, n int) (srq verbs.SRQ, free func(), err error) {
	pd, err := dev.AllocPD()
	if err != nil {
		return nil, nil, err
	}
	if srq, err = pd.CreateSRQ(verbs.SRQAttr{MaxWR: 16, MaxSGE: 1}); err != nil {
		pd.Dealloc()
		return nil, nil, err
	}
	if bufPD == nil {
		bufPD = pd
	}
	buf, err := bufPD.RegMR(4096, verbs.AccessLocalWrite)
	if err != nil {
		return nil, nil, err
	}
	for i := range n {
		if err := srq.PostRecv(verbs.RecvWR{WRID: uint64(500 + i), SGList: []verbs.SGE{{Addr: buf.Addr() + uint64(i)*256, Length: 256, LKey: buf.LKey()}}}); err != nil {
			return nil, nil, err
		}
	}
	return srq, func() { buf.Dereg(); srq.Destroy(); pd.Dealloc() }, nil
}

// sendOne sends 16 bytes from the client and returns the server's RECV
// completion (and the client's send completion's status).
func sendOne(t *testing.T, pr *pair, wrID uint64) (recv verbs.WC, send verbs.WCStatus) {
	t.Helper()
	pr.cli.post(t, verbs.SendWR{WRID: wrID, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: pr.cli.msg.Addr(), Length: 16, LKey: pr.cli.msg.LKey()}}})
	got := pollFor(pr.srv.cq, 500*time.Millisecond)
	sent := pollFor(pr.cli.cq, 100*time.Millisecond)
	if len(got) == 0 || len(sent) == 0 {
		t.Fatalf("SEND %d: server completions %+v, client %+v", wrID, got, sent)
	}
	return got[0], sent[0].Status
}

func TestRxeSRQ(t *testing.T) {
	p := open(t)
	addr := rdmaAddr(t, p)
	t.Run("RECV buffer in the SRQ's PD, QP in another", func(t *testing.T) {
		o := defaults()
		o.srvRecvs = 0
		o.srvSRQ = func(dev verbs.Device, _ verbs.PD) (verbs.SRQ, func(), error) { return srqIn(dev, nil, 2) }
		pr := connect(t, p, addr, o)
		t.Logf("FACT rdma_create_qp with an SRQ of another PD: succeeded")
		wc, send := sendOne(t, pr, 1)
		t.Logf("FACT SEND into an SRQ RECV whose buffer is in the SRQ's PD, not the QP's: recv %s (wr_id %d), send %s", wc.Status, wc.WRID, send)
	})
	t.Run("RECV buffer in the QP's PD, SRQ in another; the limit event", func(t *testing.T) {
		o := defaults()
		o.srvRecvs = 0
		var srq verbs.SRQ
		o.srvSRQ = func(dev verbs.Device, qpPD verbs.PD) (verbs.SRQ, func(), error) {
			s, free, err := srqIn(dev, qpPD, 3)
			if err == nil {
				err = s.Arm(2)
			}
			srq = s
			return s, free, err
		}
		pr := connect(t, p, addr, o)
		attr, err := srq.Query()
		t.Logf("FACT ibv_query_srq after ibv_create_srq(max_wr 16) and ibv_modify_srq(srq_limit 2): %+v %v", attr, err)
		for i := range 2 {
			wc, send := sendOne(t, pr, uint64(10+i))
			n, err := srq.LimitEvents()
			t.Logf("FACT SEND %d (3 RECVs posted, limit 2): recv %s wr_id %d, send %s; limit events so far %d %v", i+1, wc.Status, wc.WRID, send, n, err)
			if wc.Status != verbs.WCSuccess {
				t.Errorf("SEND %d into the SRQ: %s", i+1, wc.Status)
			}
		}
		time.Sleep(100 * time.Millisecond)
		n, _ := srq.LimitEvents()
		after, _ := srq.Query()
		t.Logf("FACT after 2 of 3 RECVs taken: %d limit event(s), srq_limit now %d", n, after.Limit)
		if n != 1 || after.Limit != 0 {
			t.Errorf("limit events %d, srq_limit %d; want 1 event (1 RECV left < 2) and the limit disarmed", n, after.Limit)
		}
		if err := pr.srv.qp.PostRecv(verbs.RecvWR{WRID: 9, SGList: []verbs.SGE{{Addr: pr.srv.msg.Addr(), Length: 16, LKey: pr.srv.msg.LKey()}}}); err == nil {
			t.Logf("FACT ibv_post_recv on a QP with an SRQ: accepted")
		} else {
			t.Logf("FACT ibv_post_recv on a QP with an SRQ: %v", err)
		}
	})
}
