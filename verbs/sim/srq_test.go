package sim

import (
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// The twin of verbs/rdmacore's TestRxeSRQ: the RC QPs created with an
// SRQ take their RECVs from it; the RECV's buffer answers to the PD of
// the QP the SEND came on (rxe's send_data_in: copy_data(qp->pd, ...)),
// so an SRQ of another PD works only with buffers in the QP's PD; taking
// the RECV that leaves fewer than the armed limit raises the limit event
// once and disarms; a QP with an SRQ refuses ibv_post_recv.

// srqRig is an SRQ in a PD of its own, with n RECVs into buf.
type srqRig struct {
	pd  verbs.PD
	srq verbs.SRQ
	buf verbs.MR
}

func newSRQRig(t *testing.T, dev verbs.Device, bufPD verbs.PD, n int) *srqRig {
	t.Helper()
	r := &srqRig{}
	var err error
	r.pd, err = dev.AllocPD()
	must(t, err)
	r.srq, err = r.pd.CreateSRQ(verbs.SRQAttr{MaxWR: 16, MaxSGE: 1})
	must(t, err)
	if bufPD == nil {
		bufPD = r.pd
	}
	r.buf, err = bufPD.RegMR(4096, verbs.AccessLocalWrite)
	must(t, err)
	for i := range n {
		must(t, r.srq.PostRecv(verbs.RecvWR{WRID: uint64(500 + i), SGList: []verbs.SGE{{Addr: r.buf.Addr() + uint64(i)*256, Length: 256, LKey: r.buf.LKey()}}}))
	}
	return r
}

// srqPair connects a pair whose server QP uses an SRQ built by mk; done
// tears it all down, the SRQ after the QP that uses it.
func srqPair(t *testing.T, mk func(dev verbs.Device, qpPD verbs.PD) *srqRig) (srv, cli *side, rig **srqRig, done func()) {
	var r *srqRig
	srv, cli = connectPair(t, pairCfg{noCleanup: true, srvSRQ: func(dev verbs.Device, qpPD verbs.PD) verbs.SRQ {
		r = mk(dev, qpPD)
		return r.srq
	}})
	return srv, cli, &r, func() {
		if err := r.srq.Destroy(); err == nil {
			t.Error("ibv_destroy_srq while a QP uses it: no EBUSY")
		}
		must(t, srv.id.DestroyQP())
		srv.qp = nil
		must(t, r.buf.Dereg())
		must(t, r.srq.Destroy())
		must(t, r.pd.Dealloc())
		teardown(t, srv, cli)
	}
}

func sendSRQ(t *testing.T, srv, cli *side, wrID uint64) verbs.WC {
	t.Helper()
	msg := cli.regMR(t, 64, verbs.AccessLocalWrite)
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: wrID, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(msg, 0, 16)}))
	return pollN(t, srv.cq, 1)[0]
}

func TestSRQRecvBufferAnswersToTheQPsPD(t *testing.T) {
	srv, cli, _, done := srqPair(t, func(dev verbs.Device, _ verbs.PD) *srqRig { return newSRQRig(t, dev, nil, 2) })
	wc := sendSRQ(t, srv, cli, 1)
	if wc.Status != verbs.WCLocQPOpErr || wc.WRID != 500 {
		t.Errorf("SEND into an SRQ RECV whose buffer is in the SRQ's PD, not the QP's: %s wr_id %d; want rxe's local QP operation error on the RECV it took", wc.Status, wc.WRID)
	}
	done()
}

func TestSRQLimitEvent(t *testing.T) {
	srv, cli, rig, done := srqPair(t, func(dev verbs.Device, qpPD verbs.PD) *srqRig {
		r := newSRQRig(t, dev, qpPD, 3)
		must(t, r.srq.Arm(2))
		return r
	})
	srq := (*rig).srq
	for i, wantEvents := range []int{0, 1} {
		wc := sendSRQ(t, srv, cli, uint64(10+i))
		if wc.Status != verbs.WCSuccess || wc.WRID != uint64(500+i) || wc.Opcode != verbs.WCRecv {
			t.Fatalf("SEND %d: %+v, want the SRQ's RECV %d in order", i+1, wc, 500+i)
		}
		if n, _ := srq.LimitEvents(); n != wantEvents {
			t.Errorf("after SEND %d (%d RECVs left, limit 2): %d limit events, want %d", i+1, 2-i, n, wantEvents)
		}
	}
	if a, _ := srq.Query(); a.Limit != 0 || a.MaxWR != 31 {
		t.Errorf("ibv_query_srq %+v: want the limit disarmed and max_wr rounded up as rxe does (16 → 31)", a)
	}
	err := srv.qp.PostRecv(verbs.RecvWR{WRID: 9, SGList: sge((*rig).buf, 0, 16)})
	wantErrno(t, err, "ibv_post_recv", errEINVAL)
	done()
}
