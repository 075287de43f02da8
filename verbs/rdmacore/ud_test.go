//go:build linux && cgo

package rdmacore

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// The UD facts the simulated NIC copies (verbs/sim/ud_test.go), checked on
// a real device: run in the guest like the rest of this package.

type udPair struct {
	p        *Provider
	listener verbs.CMID
	srv, cli side
	req, est verbs.CMEvent
	ah       verbs.AH
}

func (s *side) buildUD(t testing.TB) {
	t.Helper()
	s.pd = must(s.id.Device().AllocPD())(t)
	s.cq = must(s.id.Device().CreateCQ(16))(t)
	s.qp = must(s.id.CreateQP(s.pd, verbs.QPInitAttr{SendCQ: s.cq, RecvCQ: s.cq, Type: verbs.QPTUD,
		Cap: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}}))(t)
	s.data = must(s.pd.RegMR(4096, verbs.AccessLocalWrite))(t)
}

func udConnect(t *testing.T) *udPair {
	p := open(t)
	addr := rdmaAddr(t, p)
	u := &udPair{p: p}
	t.Cleanup(func() { u.close(t) })
	ap := netip.AddrPortFrom(addr, port())
	u.srv.ch = must(p.CreateEventChannel())(t)
	u.listener = must(u.srv.ch.CreateID(verbs.PSUDP))(t)
	noErr(t, u.listener.BindAddr(ap))
	noErr(t, u.listener.Listen(1))
	u.cli.ch = must(p.CreateEventChannel())(t)
	u.cli.id = must(u.cli.ch.CreateID(verbs.PSUDP))(t)
	noErr(t, u.cli.id.ResolveAddr(netip.AddrPort{}, ap, 5*time.Second))
	event(t, u.cli.ch, verbs.EventAddrResolved)
	noErr(t, u.cli.id.ResolveRoute(5*time.Second))
	event(t, u.cli.ch, verbs.EventRouteResolved)
	u.cli.buildUD(t)
	noErr(t, u.cli.id.Connect(verbs.ConnParam{PrivateData: []byte("hello-ud")}))
	u.req = event(t, u.srv.ch, verbs.EventConnectRequest)
	u.srv.id = u.req.ID
	u.srv.buildUD(t)
	noErr(t, u.srv.id.Accept(verbs.ConnParam{PrivateData: []byte("ok")}))
	u.est = event(t, u.cli.ch, verbs.EventEstablished)
	u.ah = must(verbs.CreateAH(u.cli.pd, u.est.UD.AHAttr))(t)
	return u
}

func (u *udPair) close(t *testing.T) {
	if u.ah != nil {
		noErr(t, u.ah.Destroy())
	}
	u.cli.teardown(t)
	u.srv.teardown(t)
	if u.listener != nil {
		noErr(t, u.listener.Destroy())
	}
	for _, ch := range []verbs.EventChannel{u.cli.ch, u.srv.ch} {
		if ch != nil {
			noErr(t, ch.Destroy())
		}
	}
	if n := u.p.Live(); n.Total() != 0 {
		t.Errorf("Live after teardown: %+v", n)
	}
}

func (u *udPair) send(t *testing.T, msg []byte, n int, qkey uint32) verbs.WC {
	t.Helper()
	if msg != nil {
		noErr(t, u.cli.data.Write(0, msg))
	}
	u.cli.post(t, verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: u.cli.data.Addr(), Length: uint32(n), LKey: u.cli.data.LKey()}},
		UD:     verbs.UDDest{AH: u.ah, RemoteQPN: u.est.UD.QPNum, RemoteQKey: qkey}})
	return waitWC(t, u.cli.cq)
}

func (u *udPair) postRecv(t *testing.T, n int) {
	t.Helper()
	noErr(t, u.srv.qp.PostRecv(verbs.RecvWR{WRID: 7, SGList: []verbs.SGE{{Addr: u.srv.data.Addr(), Length: uint32(n), LKey: u.srv.data.LKey()}}}))
}

// nothingArrives checks that no completion comes on the server for a while
// (rxe under TCG answers in well under a millisecond).
func (u *udPair) nothingArrives(t *testing.T, what string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
	if wcs := must(u.srv.cq.Poll(4))(t); len(wcs) != 0 {
		t.Errorf("%s: a completion arrived: %+v", what, wcs)
	}
}

func TestUDRealConnect(t *testing.T) {
	u := udConnect(t)
	if n := len(u.req.PrivateData); n != 180 || !bytes.HasPrefix(u.req.PrivateData, []byte("hello-ud")) {
		t.Errorf("CONNECT_REQUEST private data: %d bytes, want hello-ud padded to 180", n)
	}
	ud := u.est.UD
	t.Logf("ESTABLISHED param.ud: qp_num=%d qkey=0x%x ah_attr=%s", ud.QPNum, ud.QKey, ud.AHAttr)
	if ud.QPNum != u.srv.qp.Num() || ud.QKey != verbs.UDPQKey || !ud.AHAttr.IsGlobal || ud.AHAttr.SGIDIndex != 1 || ud.AHAttr.HopLimit != 64 {
		t.Errorf("param.ud %+v: want the server QP %d, qkey 0x%x, a GRH from GID index 1 with hop limit 64", ud, u.srv.qp.Num(), verbs.UDPQKey)
	}
	if len(u.est.PrivateData) != 136 {
		t.Errorf("ESTABLISHED private data %d bytes, want 136", len(u.est.PrivateData))
	}
	for _, s := range []*side{&u.srv, &u.cli} {
		a := must(s.qp.Query())(t)
		if a.State != verbs.QPSRTS || a.QKey != verbs.UDPQKey {
			t.Errorf("UD QP after rdma_create_qp: %s qkey 0x%x, want RTS 0x%x", a.State, a.QKey, verbs.UDPQKey)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if ev, err := u.srv.ch.GetEvent(ctx); err == nil {
		t.Errorf("server event after a UD rdma_accept: %s", ev.Type)
	}
	bad := ud.AHAttr
	bad.IsGlobal = false
	if _, err := verbs.CreateAH(u.cli.pd, bad); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("ibv_create_ah without is_global: %v, want EINVAL", err)
	}
	noErr(t, u.cli.id.Disconnect())
	if st := must(u.cli.qp.Query())(t).State; st != verbs.QPSErr {
		t.Errorf("client UD QP after rdma_disconnect: %s, want ERR", st)
	}
}

func TestUDRealDatagrams(t *testing.T) {
	u := udConnect(t)
	wc := u.send(t, []byte("too early"), 9, u.est.UD.QKey)
	if wc.Status != verbs.WCSuccess {
		t.Fatalf("send before the peer's RECV: %s, want success", wc.Status)
	}
	time.Sleep(100 * time.Millisecond)
	u.postRecv(t, 4096)
	u.nothingArrives(t, "datagram sent before the RECV")

	msg := []byte("hello over UD")
	u.send(t, msg, len(msg), u.est.UD.QKey)
	wc = waitWC(t, u.srv.cq)
	if wc.Status != verbs.WCSuccess || !wc.HasGRH || wc.ByteLen != uint32(verbs.GRHLen+len(msg)) || wc.SrcQP != u.cli.qp.Num() {
		t.Fatalf("recv completion %+v", wc)
	}
	got := must(u.srv.data.Read(0, verbs.GRHLen+len(msg)))(t)
	t.Logf("GRH: % x", got[:verbs.GRHLen])
	if !bytes.Equal(got[verbs.GRHLen:], msg) || !bytes.Equal(got[:20], make([]byte, 20)) || got[20] != 0x45 || got[30]|got[31] != 0 {
		t.Errorf("receive buffer % x: want 20 zero bytes, an IPv4 header with checksum 0, then the message", got)
	}

	u.postRecv(t, 4096)
	for _, c := range []struct {
		what string
		n    int
		qkey uint32
	}{{"wrong qkey", 14, 0x1234}, {"1025 bytes", 1025, u.est.UD.QKey}, {"4096 bytes", 4096, u.est.UD.QKey}} {
		if wc := u.send(t, nil, c.n, c.qkey); wc.Status != verbs.WCSuccess {
			t.Errorf("%s: sender's completion %s, want success", c.what, wc.Status)
		}
		u.nothingArrives(t, c.what)
	}
	u.send(t, nil, 1024, u.est.UD.QKey)
	if wc := waitWC(t, u.srv.cq); wc.Status != verbs.WCSuccess || wc.ByteLen != verbs.GRHLen+1024 {
		t.Errorf("1024-byte datagram: %+v", wc)
	}

	u.postRecv(t, verbs.GRHLen+10)
	u.send(t, msg, len(msg), u.est.UD.QKey)
	if wc := waitWC(t, u.srv.cq); wc.Status != verbs.WCLocQPOpErr {
		t.Errorf("RECV too small for GRH + message: %s, want %s", wc.Status, verbs.WCLocQPOpErr)
	}
	if st := must(u.srv.qp.Query())(t).State; st != verbs.QPSErr {
		t.Errorf("server QP after the too-small RECV: %s, want ERR", st)
	}
}

// TestUDRealReject: rdma_reject on a UD request answers the SIDR request
// with status IB_SIDR_REJECT; the client sees RDMA_CM_EVENT_UNREACHABLE.
func TestUDRealReject(t *testing.T) {
	p := open(t)
	addr := rdmaAddr(t, p)
	ap := netip.AddrPortFrom(addr, port())
	sch := must(p.CreateEventChannel())(t)
	defer sch.Destroy()
	lid := must(sch.CreateID(verbs.PSUDP))(t)
	defer lid.Destroy()
	noErr(t, lid.BindAddr(ap))
	noErr(t, lid.Listen(1))
	cch := must(p.CreateEventChannel())(t)
	defer cch.Destroy()
	id := must(cch.CreateID(verbs.PSUDP))(t)
	defer id.Destroy()
	noErr(t, id.ResolveAddr(netip.AddrPort{}, ap, 5*time.Second))
	event(t, cch, verbs.EventAddrResolved)
	noErr(t, id.ResolveRoute(5*time.Second))
	event(t, cch, verbs.EventRouteResolved)
	noErr(t, id.Connect(verbs.ConnParam{}))
	req := event(t, sch, verbs.EventConnectRequest)
	noErr(t, req.ID.Reject(nil))
	ev := event(t, cch, verbs.EventUnreachable)
	t.Logf("client after rdma_reject of a UD request: %s status %d", ev.Type, ev.Status)
	if ev.Status != 2 {
		t.Errorf("status %d, want 2 (IB_SIDR_REJECT)", ev.Status)
	}
	noErr(t, req.ID.Destroy())
}
