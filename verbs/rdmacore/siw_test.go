//go:build linux && cgo

package rdmacore

import (
	"bytes"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Soft-iWARP (siw) facts, measured in a guest that has siw0:
//
//	RDMATOUR_GUEST_SIW=only scripts/qemu/run-in-guest.sh -- \
//	    env RDMATOUR_RDMA_ADDR=10.0.2.15 /tmp/rdmacore.test -test.run Siw -test.v
//
// The tests skip unless rdma_cm binds the address to an iWARP device: with
// rxe0 and siw0 on the same netdev, rdma_cm bound 10.0.2.15 to rxe0
// (measured), so these run in a guest with siw0 only. The FACT lines are
// what the tour's iWARP notes and concept-iwarp cite; the checks hold
// what siw0 answered on Debian's 6.1.0-48 (siw built from its source).

// siwPair connects a client and server on the iWARP device behind the
// address, or skips.
func siwPair(t *testing.T, o opts) *pair {
	t.Helper()
	p := open(t)
	addr := rdmaAddr(t, p)
	pr := connect(t, p, addr, o)
	info := pr.cli.id.Device().Info()
	t.Logf("FACT rdma_cm bound %s to %s (transport %s)", addr, info.Name, info.Transport)
	if info.Transport != "iWARP" {
		t.Skipf("%s is on %s (%s), not an iWARP device", addr, info.Name, info.Transport)
	}
	return pr
}

func TestSiwDeviceAndRefusals(t *testing.T) {
	o := defaults()
	o.acceptPriv = bytes.Repeat([]byte{0xab}, 40)
	pr := siwPair(t, o)
	cli, srv := &pr.cli, &pr.srv
	dev := cli.id.Device()
	info := dev.Info()
	t.Logf("FACT %s: atomic_cap %s max_qp_rd_atom %d max_qp_init_rd_atom %d ports %+v", info.Name, info.AtomicCap, info.MaxQPRdAtom, info.MaxQPInitRdAtom, info.Ports)
	if info.AtomicCap != verbs.AtomicNone || info.MaxQPRdAtom != 128 {
		t.Errorf("atomic_cap %s max_qp_rd_atom %d, measured IBV_ATOMIC_NONE and 128", info.AtomicCap, info.MaxQPRdAtom)
	}
	// MPA carries the private data as sent: no padding to 196 as IB/RoCE.
	t.Logf("FACT accept private data: sent %d bytes, client got %d", len(o.acceptPriv), len(pr.estPriv))
	if !bytes.Equal(pr.estPriv, o.acceptPriv) {
		t.Errorf("client got %d bytes of private data %x, want the 40 sent", len(pr.estPriv), pr.estPriv)
	}
	for name, s := range map[string]*side{"client": cli, "server": srv} {
		a := must(s.qp.Query())(t)
		t.Logf("FACT %s QP 0x%x: state %s mtu %d dest_qp 0x%x access %s rd_atomic %d/%d cap %+v",
			name, s.qp.Num(), a.State, a.PathMTU, a.DestQPNum, a.AccessFlags, a.MaxRdAtomic, a.MaxDestRdAtom, a.Cap)
		// siw_query_qp fills caps and access but never qp_state: a
		// connected QP reads RESET. max_inline_data is SIW_MAX_INLINE
		// (sizeof(struct siw_sge) * (SIW_MAX_SGE - 1) = 80).
		if a.State != verbs.QPSReset || a.Cap.MaxInlineData != 80 {
			t.Errorf("%s QP: state %s max_inline %d, measured RESET and 80", name, a.State, a.Cap.MaxInlineData)
		}
	}

	// UD: iWARP has no datagram service.
	ud, err := dev.CreateQP(cli.pd, verbs.QPInitAttr{SendCQ: cli.cq, RecvCQ: cli.cq, Type: verbs.QPTUD,
		Cap: verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}})
	t.Logf("FACT ibv_create_qp(IBV_QPT_UD) on %s: %s", info.Name, errnoIs(err))
	if got := errnoIs(err); got != "ibv_create_qp EOPNOTSUPP" { // siw_create_qp: "only RC QP's supported"
		t.Errorf("UD QP: %s, measured EOPNOTSUPP", got)
	}
	if ud != nil {
		noErr(t, ud.Destroy())
	}

	// WRITE_WITH_IMM and an atomic: what the post answers.
	noErr(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 101, SGList: []verbs.SGE{{Addr: srv.msg.Addr(), Length: 128, LKey: srv.msg.LKey()}}}))
	for _, wr := range []verbs.SendWR{
		{WRID: 301, Opcode: verbs.WRRDMAWriteWithImm, Flags: verbs.SendSignaled, ImmData: 0x12345678,
			SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 8, LKey: cli.data.LKey()}},
			RemoteAddr: srv.data.Addr() + 1000, RKey: srv.data.RKey()},
		{WRID: 302, Opcode: verbs.WRAtomicFetchAndAdd, Flags: verbs.SendSignaled, CompareAdd: 1,
			SGList:     []verbs.SGE{{Addr: cli.data.Addr() + 512, Length: 8, LKey: cli.data.LKey()}},
			RemoteAddr: srv.data.Addr() + 64, RKey: srv.data.RKey()},
	} {
		err := cli.qp.PostSend(wr)
		t.Logf("FACT ibv_post_send(%s) on %s: %s", wr.Opcode, info.Name, errnoIs(err))
		if got := errnoIs(err); got != "ibv_post_send EINVAL" { // rdma-core providers/siw/siw.c map_send_opcode
			t.Errorf("%s: %s, measured EINVAL at post", wr.Opcode, got)
		}
		if err == nil {
			wc := waitWC(t, cli.cq)
			t.Logf("FACT %s completion: %s (%s) opcode %s", wr.Opcode, wc.Status, wc.Status.CName(), wc.Opcode)
		}
		t.Logf("FACT client QP after %s: %s", wr.Opcode, must(cli.qp.Query())(t).State)
	}
	siwGoodOps(t, pr)
}

// siwGoodOps runs SEND/RECV, WRITE and READ (into a sink with REMOTE_WRITE).
func siwGoodOps(t *testing.T, pr *pair) {
	cli, srv := &pr.cli, &pr.srv
	noErr(t, cli.msg.Write(0, []byte("RDMA_WRITE_DONE\x00")))
	cli.post(t, verbs.SendWR{WRID: 200, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: cli.msg.Addr(), Length: 16, LKey: cli.msg.LKey()}}})
	wc := waitWC(t, cli.cq)
	rwc := waitWC(t, srv.cq)
	t.Logf("FACT SEND: %s; RECV: %s wr_id %d byte_len %d", wc.Status, rwc.Status, rwc.WRID, rwc.ByteLen)
	if wc.Status != verbs.WCSuccess || rwc.Status != verbs.WCSuccess || rwc.ByteLen != 16 {
		t.Errorf("SEND wc %+v RECV wc %+v", wc, rwc)
	}
	msg := []byte("hello over iWARP")
	noErr(t, cli.data.Write(0, msg))
	cli.post(t, verbs.SendWR{WRID: 300, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: uint32(len(msg)), LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr() + 100, RKey: srv.data.RKey()})
	wc = waitWC(t, cli.cq)
	got := must(srv.data.Read(100, len(msg)))(t)
	t.Logf("FACT WRITE: %s, landed %v", wc.Status, bytes.Equal(got, msg))
	if wc.Status != verbs.WCSuccess || !bytes.Equal(got, msg) {
		t.Errorf("WRITE wc %+v, server has %q", wc, got)
	}
	pattern := bytes.Repeat([]byte{0xA5, 0x5A, 0x01, 0x02}, 256)
	noErr(t, srv.data.Write(2048, pattern))
	cli.post(t, verbs.SendWR{WRID: 400, Opcode: verbs.WRRDMARead, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr() + 2048, Length: 1024, LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr() + 2048, RKey: srv.data.RKey()})
	wc = waitWC(t, cli.cq)
	t.Logf("FACT READ into a REMOTE_WRITE sink: %s byte_len %d", wc.Status, wc.ByteLen)
	if wc.Status != verbs.WCSuccess || !bytes.Equal(must(cli.data.Read(2048, 1024))(t), pattern) {
		t.Errorf("READ wc %+v or data differs", wc)
	}
}

// TestSiwReadSinkWithoutRemoteWrite: the READ's local sink registered with
// IBV_ACCESS_LOCAL_WRITE only (enough on IB and RoCE).
func TestSiwReadSinkWithoutRemoteWrite(t *testing.T) {
	pr := siwPair(t, defaults())
	cli, srv := &pr.cli, &pr.srv
	sink := must(cli.pd.RegMR(4096, verbs.AccessLocalWrite))(t)
	defer func() { noErr(t, sink.Dereg()) }()
	noErr(t, srv.data.Write(0, []byte("read me")))
	cli.post(t, verbs.SendWR{WRID: 500, Opcode: verbs.WRRDMARead, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: sink.Addr(), Length: 64, LKey: sink.LKey()}},
		RemoteAddr: srv.data.Addr(), RKey: srv.data.RKey()})
	wc := waitWC(t, cli.cq)
	t.Logf("FACT READ into a LOCAL_WRITE-only sink: status %d %s (%s) vendor_err %d byte_len %d data %q",
		int(wc.Status), wc.Status, wc.Status.CName(), wc.VendorErr, wc.ByteLen, must(sink.Read(0, 7))(t))
	t.Logf("FACT client QP after: %s; server QP: %s", must(cli.qp.Query())(t).State, must(srv.qp.Query())(t).State)
	// siw places the READ response through the WQE's own SGE and checks
	// only IB_ACCESS_LOCAL_WRITE there (siw_qp_rx.c siw_proc_rresp), so
	// the sink works without REMOTE_WRITE; hardware iWARP and the kernel's
	// ULPs give it REMOTE_WRITE, as the tour does on iWARP.
	if wc.Status != verbs.WCSuccess || string(must(sink.Read(0, 7))(t)) != "read me" {
		t.Errorf("READ into a LOCAL_WRITE-only sink: %s, measured success with the data", wc.Status)
	}
	time.Sleep(200 * time.Millisecond)
	if wcs, err := srv.cq.Poll(4); err == nil {
		for _, w := range wcs {
			t.Logf("FACT server completion: %s (%s) opcode %s", w.Status, w.Status.CName(), w.Opcode)
		}
	}
}

// TestSiwBadRKeyWrite: a WRITE to a wrong rkey. On IB and RoCE the
// responder NAKs it and the requester's completion is
// IBV_WC_REM_ACCESS_ERR (TestBadRKey); on siw the requester's WRITE
// completes as soon as TCP has the bytes, so it reads success; the
// responder answers the bad STag with a TERMINATE (siw_qp_rx.c
// siw_write_check_ntoh, siw_init_terminate), its QP goes to error and its
// posted RECV is flushed, and the requester's next WRITE is taken by
// ibv_post_send but does not complete (measured, 5 s).
func TestSiwBadRKeyWrite(t *testing.T) {
	pr := siwPair(t, defaults())
	cli, srv := &pr.cli, &pr.srv
	cli.post(t, verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 64, LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr(), RKey: srv.data.RKey() ^ 0x5a5a00})
	wc := waitWC(t, cli.cq)
	t.Logf("FACT WRITE to a wrong rkey: requester wc %s (%s)", wc.Status, wc.Status.CName())
	if wc.Status != verbs.WCSuccess {
		t.Errorf("requester wc %s, measured success", wc.Status)
	}
	time.Sleep(300 * time.Millisecond) // the TERMINATE crosses
	// The next WRITE: ibv_post_send took it, and no completion came in 20 s
	// (measured; waitWC's timeout), so poll a while instead of waiting.
	err := cli.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 64, LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr(), RKey: srv.data.RKey()})
	var wcs []verbs.WC
	for deadline := time.Now().Add(5 * time.Second); err == nil && len(wcs) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		wcs, _ = cli.cq.Poll(4)
	}
	t.Logf("FACT the next WRITE: post %s, completions within 5 s: %+v", errnoIs(err), wcs)
	if err != nil || len(wcs) != 0 {
		t.Errorf("next WRITE: post %v, completions %+v; measured: posted, none in 5 s", err, wcs)
	}
	flushed := false
	for _, w := range must(srv.cq.Poll(4))(t) {
		t.Logf("FACT server completion: %s (%s) wr_id %d", w.Status, w.Status.CName(), w.WRID)
		flushed = flushed || (w.Status == verbs.WCWRFlushErr && w.WRID == 100)
	}
	if !flushed {
		t.Error("the server's RECV was not flushed; measured: IBV_WC_WR_FLUSH_ERR (its QP went to error)")
	}
}
