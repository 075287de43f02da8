package sim

import (
	"net/netip"
	"syscall"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// TestCreateAHFromWC: the server makes an address handle back to the
// sender of a datagram it received, from the GRH, and the answer sent
// with it to wc.src_qp reaches the client's QP.
func TestCreateAHFromWC(t *testing.T) {
	u := newUDPair(t)
	u.postRecv(t, 4096)
	u.send(t, []byte("hello"), 6, u.qkey)
	wc := pollN(t, u.srv.cq, 1)[0]
	grh, err := u.srvMR.Read(0, verbs.GRHLen)
	must(t, err)
	ah, err := verbs.CreateAHFromWC(u.srv.pd, wc, grh, 1)
	must(t, err)
	a := ah.Attr()
	if !a.IsGlobal || a.DGID != netip.MustParseAddr("::ffff:127.0.0.1") || a.HopLimit != 64 || a.SGIDIndex != udSGIDIndex || a.PortNum != 1 {
		t.Errorf("AH from the GRH: %s", a)
	}
	// The answer reaches the client's QP, named by wc.src_qp.
	must(t, u.cli.qp.PostRecv(verbs.RecvWR{WRID: 9, SGList: sge(u.cliMR, 0, 4096)}))
	must(t, u.srv.qp.PostSend(verbs.SendWR{WRID: 8, Opcode: verbs.WRSend, Flags: verbs.SendSignaled, SGList: sge(u.srvMR, 0, 8),
		UD: verbs.UDDest{AH: ah, RemoteQPN: wc.SrcQP, RemoteQKey: verbs.UDPQKey}}))
	wantStatus(t, pollN(t, u.srv.cq, 1)[0], 8, verbs.WCSuccess)
	if got := pollN(t, u.cli.cq, 1)[0]; got.WRID != 9 || got.Status != verbs.WCSuccess || got.SrcQP != u.qpn {
		t.Errorf("the client's receive of the answer: %+v (want src_qp 0x%x)", got, u.qpn)
	}
	must(t, ah.Destroy())

	for _, tc := range []struct {
		name string
		wc   verbs.WC
		grh  []byte
	}{
		{"no IBV_WC_GRH", verbs.WC{SrcQP: wc.SrcQP}, grh},
		{"no IPv4 header", wc, make([]byte, verbs.GRHLen)},
		{"GRH cut short", wc, grh[:20]},
	} {
		if _, err := verbs.CreateAHFromWC(u.srv.pd, tc.wc, tc.grh, 1); err == nil {
			t.Errorf("%s: made an address handle", tc.name)
		} else {
			wantErrno(t, err, "ibv_create_ah_from_wc", syscall.EINVAL)
		}
	}
}
