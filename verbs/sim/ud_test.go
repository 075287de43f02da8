package sim

import (
	"bytes"
	"context"
	"encoding/binary"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
)

// udPair is a UD server and client set up as the ud tour does: the
// client's ESTABLISHED gave it an address handle to the server's QP.
type udPair struct {
	srv, cli     *side
	ah           verbs.AH
	qpn, qkey    uint32
	srvMR, cliMR verbs.MR
}

func newUDPair(t *testing.T) *udPair { return newUDPairTB(t, Options{}) }

// newUDPairOpts is newUDPair with the server NIC's options.
func newUDPairOpts(t *testing.T, srvOpts Options) *udPair { return newUDPairTB(t, srvOpts) }

func newUDPairTB(t testing.TB, srvOpts Options) *udPair {
	t.Helper()
	srv, cli := &side{p: New(srvOpts)}, &side{p: New(Options{})}
	var err error
	srv.ch, err = srv.p.CreateEventChannel()
	must(t, err)
	srv.lid, err = srv.ch.CreateID(verbs.PSUDP)
	must(t, err)
	must(t, srv.lid.BindAddr(netip.AddrPortFrom(loopback, 0)))
	must(t, srv.lid.Listen(1))
	cli.ch, err = cli.p.CreateEventChannel()
	must(t, err)
	cli.id, err = cli.ch.CreateID(verbs.PSUDP)
	must(t, err)
	must(t, cli.id.ResolveAddr(netip.AddrPort{}, srv.lid.LocalAddr(), time.Second))
	waitEvent(t, cli.ch, verbs.EventAddrResolved)
	must(t, cli.id.ResolveRoute(time.Second))
	waitEvent(t, cli.ch, verbs.EventRouteResolved)
	cli.setupUD(t)
	must(t, cli.id.Connect(verbs.ConnParam{PrivateData: []byte("hello-ud")}))
	srv.last = waitEvent(t, srv.ch, verbs.EventConnectRequest)
	srv.id = srv.last.ID
	srv.setupUD(t)
	must(t, srv.id.Accept(verbs.ConnParam{PrivateData: []byte("ok")}))
	cli.last = waitEvent(t, cli.ch, verbs.EventEstablished)
	u := &udPair{srv: srv, cli: cli, qpn: cli.last.UD.QPNum, qkey: cli.last.UD.QKey}
	u.ah, err = verbs.CreateAH(cli.pd, cli.last.UD.AHAttr)
	must(t, err)
	u.srvMR = srv.regMR(t, 4096, verbs.AccessLocalWrite)
	u.cliMR = cli.regMR(t, 4096, verbs.AccessLocalWrite)
	t.Cleanup(func() {
		must(t, u.ah.Destroy())
		teardown(t, srv, cli)
	})
	return u
}

func (s *side) setupUD(t testing.TB) {
	t.Helper()
	var err error
	s.pd, err = s.id.Device().AllocPD()
	must(t, err)
	s.cq, err = s.id.Device().CreateCQ(16)
	must(t, err)
	s.qp, err = s.id.CreateQP(s.pd, verbs.QPInitAttr{SendCQ: s.cq, RecvCQ: s.cq, Type: verbs.QPTUD,
		Cap: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}})
	must(t, err)
}

// send posts a signaled UD SEND of the first n bytes of the client's MR
// and returns its completion.
func (u *udPair) send(t *testing.T, msg []byte, n int, qkey uint32) verbs.WC {
	t.Helper()
	if msg != nil {
		must(t, u.cliMR.Write(0, msg))
	}
	must(t, u.cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: sge(u.cliMR, 0, n), UD: verbs.UDDest{AH: u.ah, RemoteQPN: u.qpn, RemoteQKey: qkey}}))
	return pollN(t, u.cli.cq, 1)[0]
}

func (u *udPair) postRecv(t *testing.T, n int) {
	t.Helper()
	must(t, u.srv.qp.PostRecv(verbs.RecvWR{WRID: 7, SGList: sge(u.srvMR, 0, n)}))
}

func TestUDConnectEvents(t *testing.T) {
	u := newUDPair(t)
	req := u.srv.last
	if len(req.PrivateData) != 180 || !bytes.HasPrefix(req.PrivateData, []byte("hello-ud")) {
		t.Errorf("CONNECT_REQUEST private data %q (%d bytes), want hello-ud padded to 180", req.PrivateData, len(req.PrivateData))
	}
	est := u.cli.last
	if est.UD.QPNum != u.srv.qp.Num() || est.UD.QKey != verbs.UDPQKey {
		t.Errorf("ESTABLISHED param.ud qp_num=%d qkey=0x%x, want %d 0x%x", est.UD.QPNum, est.UD.QKey, u.srv.qp.Num(), verbs.UDPQKey)
	}
	ah := est.UD.AHAttr
	if !ah.IsGlobal || ah.DGID != peerGID(loopback) || ah.PortNum != 1 || ah.SGIDIndex != 1 || ah.HopLimit != 64 ||
		ah.FlowLabel != roceFlowLabel(u.cli.id.LocalAddr().Port(), u.cli.id.PeerAddr().Port()) {
		t.Errorf("ah_attr %s: want a GRH to %s on port 1", ah, peerGID(loopback))
	}
	if len(est.PrivateData) != 136 || !bytes.HasPrefix(est.PrivateData, []byte("ok")) {
		t.Errorf("ESTABLISHED private data %d bytes, want ok padded to 136", len(est.PrivateData))
	}
	for _, s := range []*side{u.srv, u.cli} {
		a, err := s.qp.Query()
		must(t, err)
		if a.State != verbs.QPSRTS || a.QKey != verbs.UDPQKey || s.qp.Type() != verbs.QPTUD {
			t.Errorf("UD QP after rdma_create_qp: %s qkey 0x%x type %s, want RTS 0x%x UD", a.State, a.QKey, s.qp.Type(), verbs.UDPQKey)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if ev, err := u.srv.ch.GetEvent(ctx); err == nil {
		t.Errorf("server got %s after rdma_accept on a UD id; rdma_cm sends none", ev.Type)
	}
}

func TestUDSendRecvHasGRH(t *testing.T) {
	u := newUDPair(t)
	u.postRecv(t, 4096)
	msg := []byte("hello over UD")
	wantStatus(t, u.send(t, msg, len(msg), u.qkey), 1, verbs.WCSuccess)
	wc := pollN(t, u.srv.cq, 1)[0]
	wantStatus(t, wc, 7, verbs.WCSuccess)
	if !wc.HasGRH || wc.ByteLen != uint32(verbs.GRHLen+len(msg)) || wc.SrcQP != u.cli.qp.Num() || wc.Opcode != verbs.WCRecv {
		t.Fatalf("recv completion %+v: want IBV_WC_GRH, byte_len %d, src_qp %d", wc, verbs.GRHLen+len(msg), u.cli.qp.Num())
	}
	got, err := u.srvMR.Read(0, verbs.GRHLen+len(msg))
	must(t, err)
	if !bytes.Equal(got[verbs.GRHLen:], msg) {
		t.Errorf("message after the GRH: %q", got[verbs.GRHLen:])
	}
	grh := got[:verbs.GRHLen]
	if !bytes.Equal(grh[:20], make([]byte, 20)) {
		t.Errorf("first 20 GRH bytes % x, want zero (RoCE v2 over IPv4)", grh[:20])
	}
	ip := grh[20:]
	wantLen := 20 + 8 + 12 + 8 + len(msg) + 3 + 4 // IP, UDP, BTH, DETH, payload, pad, ICRC
	if ip[0] != 0x45 || ip[9] != 17 || ip[8] != 64 || ip[10]|ip[11] != 0 || !bytes.Equal(ip[12:16], []byte{127, 0, 0, 1}) || int(binary.BigEndian.Uint16(ip[2:])) != wantLen {
		t.Errorf("GRH's IPv4 header % x: want version 4, TTL 64, UDP, checksum 0, from 127.0.0.1, total length %d", ip, wantLen)
	}
}

func TestUDDropBeforeRecv(t *testing.T) {
	u := newUDPair(t)
	// The sender hears nothing back: its completion is SUCCESS although no
	// RECV waits on the other side.
	wantStatus(t, u.send(t, []byte("too early"), 9, u.qkey), 1, verbs.WCSuccess)
	time.Sleep(20 * time.Millisecond) // the datagram has arrived and is gone
	u.postRecv(t, 4096)
	noMore(t, u.srv.cq)
	wantStatus(t, u.send(t, []byte("in time"), 7, u.qkey), 1, verbs.WCSuccess)
	wc := pollN(t, u.srv.cq, 1)[0]
	got, _ := u.srvMR.Read(verbs.GRHLen, 7)
	if wc.Status != verbs.WCSuccess || string(got) != "in time" {
		t.Fatalf("second datagram: %+v %q", wc, got)
	}
}

func TestUDSilentDrops(t *testing.T) {
	u := newUDPair(t)
	u.postRecv(t, 4096)
	cases := []struct {
		name      string
		n         int
		qkey, qpn uint32
	}{
		{"wrong qkey", 14, 0x1234, 0},
		{"no such QP", 14, 0, 100},
		{"longer than the MTU", activeMTU + 1, 0, 0},
		{"4096 bytes", 4096, 0, 0},
	}
	for _, c := range cases {
		qkey := u.qkey
		if c.qkey != 0 {
			qkey = c.qkey
		}
		must(t, u.cli.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
			SGList: sge(u.cliMR, 0, c.n), UD: verbs.UDDest{AH: u.ah, RemoteQPN: u.qpn + c.qpn, RemoteQKey: qkey}}))
		wantStatus(t, pollN(t, u.cli.cq, 1)[0], 2, verbs.WCSuccess)
		noMore(t, u.srv.cq)
		if a, _ := u.srv.qp.Query(); a.OutstandingRQ != 1 {
			t.Errorf("%s: the RECV was consumed", c.name)
		}
	}
	// A full-MTU datagram still arrives.
	wantStatus(t, u.send(t, nil, activeMTU, u.qkey), 1, verbs.WCSuccess)
	if wc := pollN(t, u.srv.cq, 1)[0]; wc.Status != verbs.WCSuccess || wc.ByteLen != verbs.GRHLen+activeMTU {
		t.Errorf("1024-byte datagram: %+v", wc)
	}
}

func TestUDPostErrors(t *testing.T) {
	u := newUDPair(t)
	err := u.cli.qp.PostSend(verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite, SGList: sge(u.cliMR, 0, 8),
		UD: verbs.UDDest{AH: u.ah, RemoteQPN: u.qpn, RemoteQKey: u.qkey}})
	wantErrno(t, err, "ibv_post_send", syscall.EINVAL)
	err = u.cli.qp.PostSend(verbs.SendWR{WRID: 3, Opcode: verbs.WRSend, SGList: sge(u.cliMR, 0, 8)})
	wantErrno(t, err, "ibv_post_send", syscall.EINVAL)
	_, err = verbs.CreateAH(u.cli.pd, verbs.AHAttr{PortNum: 1})
	wantErrno(t, err, "ibv_create_ah", syscall.EINVAL)
	wantErrno(t, u.cli.pd.Dealloc(), "ibv_dealloc_pd", syscall.EBUSY)
	if n := u.cli.p.Live().AHs; n != 1 {
		t.Errorf("live AHs %d, want 1", n)
	}
}

func TestUDRecvTooSmall(t *testing.T) {
	u := newUDPair(t)
	u.postRecv(t, verbs.GRHLen+10)
	u.postRecv(t, 4096)
	wantStatus(t, u.send(t, []byte("fourteen bytes"), 14, u.qkey), 1, verbs.WCSuccess)
	wcs := pollN(t, u.srv.cq, 2)
	wantStatus(t, wcs[0], 7, verbs.WCLocQPOpErr)
	wantStatus(t, wcs[1], 7, verbs.WCWRFlushErr)
	if wcs[0].ByteLen != 0 || wcs[0].HasGRH {
		t.Errorf("error completion %+v: want byte_len 0, no IBV_WC_GRH", wcs[0])
	}
	if s := qpState(t, u.srv.qp); s != verbs.QPSErr {
		t.Errorf("server QP %s, want ERR", s)
	}
	grh, _ := u.srvMR.Read(verbs.GRHLen-20, 1)
	if grh[0] != 0x45 {
		t.Errorf("the GRH was not written before the length check failed")
	}
}

func TestUDDisconnect(t *testing.T) {
	u := newUDPair(t)
	must(t, u.cli.id.Disconnect())
	if s := qpState(t, u.cli.qp); s != verbs.QPSErr {
		t.Errorf("client QP after rdma_disconnect: %s, want ERR", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if ev, err := u.srv.ch.GetEvent(ctx); err == nil {
		t.Errorf("server got %s after the client's rdma_disconnect on a UD id; rxe sends none", ev.Type)
	}
}

func TestRoCEFlowLabelMatchesRxe(t *testing.T) {
	// Measured on rxe in the guest: rdma_cm's source port 54395 to the
	// server's 7471 gave ah_attr.grh.flow_label 645140.
	if got := roceFlowLabel(54395, 7471); got != 645140 {
		t.Fatalf("flow label %d, want 645140", got)
	}
}

func FuzzDecodeDatagram(f *testing.F) {
	f.Add(encodeDatagram(&datagram{opcode: verbs.OpUDSendOnly, destQP: 5, qkey: verbs.UDPQKey, srcQP: 9, payload: []byte("hi")})[frameHeaderLen:])
	f.Add(encodeDatagram(&datagram{opcode: verbs.OpUDSendOnlyWithImm, hasImm: true, imm: 7})[frameHeaderLen:])
	f.Add([]byte{verbs.OpUDSendOnly, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := decodeDatagram(b)
		if err != nil {
			return
		}
		again := encodeDatagram(&g)[frameHeaderLen:]
		if !bytes.Equal(again, b) {
			t.Fatalf("round trip % x != % x", again, b)
		}
	})
}

// TestUDSendCompletesAfterTheWire: a UD completion means the datagram
// left (rxe completes after transmitting), so a sender that destroys its
// id and exits right after the completion has still delivered it.
func TestUDSendCompletesAfterTheWire(t *testing.T) {
	u := newUDPair(t)
	u.postRecv(t, 4096)
	wantStatus(t, u.send(t, []byte("last words"), 10, u.qkey), 1, verbs.WCSuccess)
	must(t, u.cli.id.DestroyQP())
	u.cli.qp = nil
	must(t, u.cli.id.Destroy())
	u.cli.id = nil
	wc := pollN(t, u.srv.cq, 1)[0]
	got, _ := u.srvMR.Read(verbs.GRHLen, 10)
	if wc.Status != verbs.WCSuccess || string(got) != "last words" {
		t.Fatalf("datagram sent just before the sender went away: %+v %q", wc, got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if ev, err := u.srv.ch.GetEvent(ctx); err == nil {
		t.Errorf("server got %s when the UD client went away; rxe posts none", ev.Type)
	}
}

// TestUDPcap: the server NIC's capture of the ud exchange is what rxe
// sends between two hosts: the SIDR MADs on QP1, then the datagrams, each
// a UD SEND_ONLY with a DETH and a valid ICRC, and nothing answering them.
func TestUDPcap(t *testing.T) {
	var pcap bytes.Buffer
	u := newUDPairOpts(t, Options{Pcap: &pcap})
	u.postRecv(t, 4096)
	u.send(t, []byte("hi"), 2, u.qkey)
	pollN(t, u.srv.cq, 1)
	frames, err := wire.ReadPcap(bytes.NewReader(pcap.Bytes()))
	must(t, err)
	var kinds []string
	for _, b := range frames {
		f, err := wire.DecodeFrame(b)
		must(t, err)
		if !f.ICRCValid {
			t.Errorf("frame with a bad ICRC: %+v", f.Packet.BTH)
		}
		kinds = append(kinds, wire.Kind(f.Packet))
		if d := f.Packet.DETH; f.Packet.BTH.DestQP != 1 && (d == nil || d.QKey != verbs.UDPQKey || d.SrcQP != u.cli.qp.Num()) {
			t.Errorf("datagram DETH %+v: want Q_Key 0x%x from QP 0x%x", d, verbs.UDPQKey, u.cli.qp.Num())
		}
	}
	if got, want := strings.Join(kinds, " / "), "CM SIDR_REQ / CM SIDR_REP / UD SEND_ONLY"; got != want {
		t.Errorf("capture: %s, want %s", got, want)
	}
}

// TestUDPortSpacesApart: rdma_cm keeps RDMA_PS_TCP and RDMA_PS_UDP ports
// apart, so a request from the other space finds no listener: a SIDR
// request gets UNREACHABLE with IB_SIDR_UNSUPPORTED (1), a REQ gets
// REJECTED with IB_CM_REJ_INVALID_SERVICE_ID (8) — as when nobody listens.
func TestUDPortSpacesApart(t *testing.T) {
	for _, tc := range []struct {
		name         string
		srvPS, cliPS verbs.PortSpace
		listen       bool
		want         verbs.CMEventType
		status       int
	}{
		{"ud client, tcp listener", verbs.PSTCP, verbs.PSUDP, true, verbs.EventUnreachable, 1},
		{"tcp client, ud listener", verbs.PSUDP, verbs.PSTCP, true, verbs.EventRejected, 8},
		{"ud client, no listener", verbs.PSUDP, verbs.PSUDP, false, verbs.EventUnreachable, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, cli := New(Options{}), New(Options{})
			sch, _ := srv.CreateEventChannel()
			lid, err := sch.CreateID(tc.srvPS)
			must(t, err)
			must(t, lid.BindAddr(netip.AddrPortFrom(loopback, 0)))
			addr := lid.LocalAddr()
			if tc.listen {
				must(t, lid.Listen(1))
			} else {
				must(t, lid.Destroy())
			}
			cch, _ := cli.CreateEventChannel()
			id, err := cch.CreateID(tc.cliPS)
			must(t, err)
			must(t, id.ResolveAddr(netip.AddrPort{}, addr, time.Second))
			waitEvent(t, cch, verbs.EventAddrResolved)
			must(t, id.ResolveRoute(time.Second))
			waitEvent(t, cch, verbs.EventRouteResolved)
			must(t, id.Connect(verbs.ConnParam{}))
			if ev := waitEvent(t, cch, tc.want); ev.Status != tc.status {
				t.Errorf("%s status %d, want %d", ev.Type, ev.Status, tc.status)
			}
			must(t, id.Destroy())
			must(t, cch.Destroy())
			if tc.listen {
				must(t, lid.Destroy())
			}
			must(t, sch.Destroy())
			waitGoroutines(t, srv)
			waitGoroutines(t, cli)
		})
	}
}

// BenchmarkUDDatagram is one 1024-byte datagram: post the RECV, SEND,
// poll both completions.
func BenchmarkUDDatagram(b *testing.B) {
	u := newUDPairTB(b, Options{})
	for i := 0; i < b.N; i++ {
		must(b, u.srv.qp.PostRecv(verbs.RecvWR{WRID: 7, SGList: sge(u.srvMR, 0, 4096)}))
		must(b, u.cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
			SGList: sge(u.cliMR, 0, activeMTU), UD: verbs.UDDest{AH: u.ah, RemoteQPN: u.qpn, RemoteQKey: u.qkey}}))
		pollN(b, u.cli.cq, 1)
		pollN(b, u.srv.cq, 1)
	}
	b.SetBytes(activeMTU)
}

func TestUDReject(t *testing.T) {
	srv, cli := New(Options{}), New(Options{})
	sch, _ := srv.CreateEventChannel()
	lid, _ := sch.CreateID(verbs.PSUDP)
	must(t, lid.BindAddr(netip.AddrPortFrom(loopback, 0)))
	must(t, lid.Listen(1))
	cch, _ := cli.CreateEventChannel()
	id, _ := cch.CreateID(verbs.PSUDP)
	must(t, id.ResolveAddr(netip.AddrPort{}, lid.LocalAddr(), time.Second))
	waitEvent(t, cch, verbs.EventAddrResolved)
	must(t, id.ResolveRoute(time.Second))
	waitEvent(t, cch, verbs.EventRouteResolved)
	must(t, id.Connect(verbs.ConnParam{}))
	req := waitEvent(t, sch, verbs.EventConnectRequest)
	must(t, req.ID.Reject(nil))
	if ev := waitEvent(t, cch, verbs.EventUnreachable); ev.Status != ibSIDRReject {
		t.Errorf("status %d, want %d (IB_SIDR_REJECT)", ev.Status, ibSIDRReject)
	}
	for _, x := range []interface{ Destroy() error }{req.ID, id, lid, cch, sch} {
		must(t, x.Destroy())
	}
	waitGoroutines(t, srv)
	waitGoroutines(t, cli)
}
