//go:build linux && cgo

package rdmacore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net/netip"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Tests below need a real RDMA device (Soft-RoCE rxe0 in the QEMU guest:
// scripts/qemu/run-in-guest.sh -- /tmp/rdmacore.test -test.v). They skip
// when there is none. RDMATOUR_RDMA_DEV picks the device, RDMATOUR_RDMA_ADDR
// the IPv4 address (default: the device's first IPv4-mapped GID).

const evTimeout = 20 * time.Second // TCG guests are slow

func rdmaAddr(t testing.TB, p *Provider) netip.Addr {
	t.Helper()
	devs, err := p.Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	if len(devs) == 0 {
		t.Skip("no RDMA device here: run inside scripts/qemu/run-in-guest.sh (Soft-RoCE)")
	}
	if s := os.Getenv("RDMATOUR_RDMA_ADDR"); s != "" {
		a, err := netip.ParseAddr(s)
		if err != nil {
			t.Fatalf("RDMATOUR_RDMA_ADDR: %v", err)
		}
		return a
	}
	want := os.Getenv("RDMATOUR_RDMA_DEV")
	for _, d := range devs {
		if want != "" && d.Name != want {
			continue
		}
		for _, pa := range d.Ports {
			for _, g := range pa.GIDs {
				if g.GID.Is4In6() && pa.State == verbs.PortActive {
					return g.GID.Unmap()
				}
			}
		}
	}
	t.Skip("no active port with an IPv4 GID (set RDMATOUR_RDMA_ADDR)")
	return netip.Addr{}
}

var nextPort atomic.Int32

func port() uint16 {
	nextPort.CompareAndSwap(0, int32(20000+os.Getpid()%20000))
	return uint16(nextPort.Add(1))
}

type side struct {
	cc   verbs.CompChannel // the CQ's completion channel, if it has one
	ch   verbs.EventChannel
	id   verbs.CMID
	pd   verbs.PD
	cq   verbs.CQ
	qp   verbs.QP
	data verbs.MR // 4096 bytes, access as configured
	msg  verbs.MR // 128 bytes, local only
	// cap is the QP's ibv_qp_cap (zero: the tests' usual 32/32 WRs, 1 SGE).
	cap verbs.QPCap
	// afterQP frees what opts.srvSRQ made, once the QP that used it is
	// gone and before this side's MRs and PD (its buffers may be there).
	afterQP func()
}

type pair struct {
	p        *Provider
	listener verbs.CMID
	srv, cli side
	// estPriv is the private data the client saw on ESTABLISHED.
	estPriv []byte
	// srvInitAccess is the server QP's qp_access_flags right after
	// rdma_create_qp on the connection request's id.
	srvInitAccess verbs.Access
}

type opts struct {
	srvAccess  verbs.Access
	rnrRetry   uint8
	srvRecvs   int // RECVs the server posts before accepting
	acceptPriv []byte
	// cliInitDepth is the client's initiator_depth in rdma_connect;
	// srvRespRes the server's responder_resources in rdma_accept.
	cliInitDepth, srvRespRes uint8
	// cliCQE and srvCQE size each side's one CQ (0: 64).
	cliCQE, srvCQE int
	// cliCap is the client QP's ibv_qp_cap (zero: 32/32 WRs, 1 SGE).
	cliCap verbs.QPCap
	// srvSRQ, if set, makes the SRQ the server's QP is created with
	// (given the device and the QP's PD) and what frees it afterwards.
	srvSRQ func(dev verbs.Device, qpPD verbs.PD) (verbs.SRQ, func(), error)
	// cliCompChannel makes the client's CQ on a completion channel.
	cliCompChannel bool
}

func defaults() opts {
	return opts{
		srvAccess:    verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead,
		rnrRetry:     7,
		srvRecvs:     1,
		cliInitDepth: 1,
		srvRespRes:   1,
	}
}

func event(t testing.TB, ch verbs.EventChannel, want verbs.CMEventType) verbs.CMEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), evTimeout)
	defer cancel()
	ev, err := ch.GetEvent(ctx)
	if err != nil {
		t.Fatalf("GetEvent (waiting for %s): %v", want, err)
	}
	if ev.Type != want {
		t.Fatalf("event %s (status %d), want %s", ev.Type, ev.Status, want)
	}
	return ev
}

// must(v, err)(t) is v, or a fatal error.
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// cqDepth is n, or the tests' usual 64.
func cqDepth(n int) int {
	if n == 0 {
		return 64
	}
	return n
}

func (s *side) build(t testing.TB, dataAccess verbs.Access, cqe int) {
	t.Helper()
	dev := s.id.Device()
	if dev == nil {
		t.Fatal("id has no device")
	}
	s.pd = must(dev.AllocPD())(t)
	if s.cc != nil {
		s.cq = must(s.cc.CreateCQ(cqDepth(cqe)))(t)
	} else {
		s.cq = must(dev.CreateCQ(cqDepth(cqe)))(t)
	}
	c := s.cap
	if c == (verbs.QPCap{}) {
		c = verbs.QPCap{MaxSendWR: 32, MaxRecvWR: 32, MaxSendSGE: 1, MaxRecvSGE: 1}
	}
	s.qp = must(s.id.CreateQP(s.pd, verbs.QPInitAttr{SendCQ: s.cq, RecvCQ: s.cq, Type: verbs.QPTRC, Cap: c}))(t)
	s.data = must(s.pd.RegMR(4096, dataAccess))(t)
	s.msg = must(s.pd.RegMR(128, verbs.AccessLocalWrite))(t)
}

func (s *side) teardown(t testing.TB) {
	t.Helper()
	check := func(what string, err error) {
		if err != nil {
			t.Errorf("teardown %s: %v", what, err)
		}
	}
	if s.qp != nil {
		check("rdma_destroy_qp", s.id.DestroyQP())
	}
	if s.afterQP != nil {
		s.afterQP()
	}
	for _, mr := range []verbs.MR{s.data, s.msg} {
		if mr != nil {
			check("ibv_dereg_mr", mr.Dereg())
		}
	}
	if s.cq != nil {
		check("ibv_destroy_cq", s.cq.Destroy())
	}
	if s.cc != nil {
		check("ibv_destroy_comp_channel", s.cc.Destroy())
	}
	if s.pd != nil {
		check("ibv_dealloc_pd", s.pd.Dealloc())
	}
	if s.id != nil {
		check("rdma_destroy_id", s.id.Destroy())
	}
}

// connect sets up server and client RC QPs on one device, in one process,
// each with its own event channel, and runs the CM exchange the seed runs.
func connect(t testing.TB, p *Provider, addr netip.Addr, o opts) *pair {
	t.Helper()
	pr := &pair{p: p}
	t.Cleanup(func() { pr.close(t) })
	ap := netip.AddrPortFrom(addr, port())

	pr.srv.ch = must(p.CreateEventChannel())(t)
	pr.listener = must(pr.srv.ch.CreateID(verbs.PSTCP))(t)
	if err := pr.listener.BindAddr(ap); err != nil {
		t.Fatal(err)
	}
	if err := pr.listener.Listen(4); err != nil {
		t.Fatal(err)
	}

	pr.cli.ch = must(p.CreateEventChannel())(t)
	pr.cli.id = must(pr.cli.ch.CreateID(verbs.PSTCP))(t)
	if err := pr.cli.id.ResolveAddr(netip.AddrPort{}, ap, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	event(t, pr.cli.ch, verbs.EventAddrResolved)
	if o.cliCompChannel {
		pr.cli.cc = must(pr.cli.id.Device().(verbs.CompChannelDevice).CreateCompChannel())(t)
	}
	pr.cli.cap = o.cliCap
	pr.cli.build(t, verbs.AccessLocalWrite|verbs.AccessRemoteWrite|verbs.AccessRemoteRead, o.cliCQE)
	// siw_query_qp never fills qp_state (siw_verbs.c): on iWARP the
	// state always reads RESET (TestSiwDeviceAndRefusals).
	if st := must(pr.cli.qp.Query())(t).State; st != verbs.QPSInit && pr.cli.id.Device().Info().Transport != verbs.TransportIWARP {
		t.Fatalf("client QP after rdma_create_qp: %s, want INIT", st)
	}
	if err := pr.cli.id.ResolveRoute(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	event(t, pr.cli.ch, verbs.EventRouteResolved)
	if err := pr.cli.id.Connect(verbs.ConnParam{ResponderResources: 1, InitiatorDepth: o.cliInitDepth, RetryCount: 7, RNRRetryCount: o.rnrRetry}); err != nil {
		t.Fatal(err)
	}

	// The server side runs in its own goroutine, as a server process would.
	srvDone := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), evTimeout)
		defer cancel()
		srvDone <- func() error {
			ev, err := pr.srv.ch.GetEvent(ctx)
			if err != nil {
				return err
			}
			if ev.Type != verbs.EventConnectRequest || ev.ID == nil || ev.ListenID != pr.listener {
				return errors.New("want CONNECT_REQUEST with a new id from the listener, got " + ev.Type.String())
			}
			pr.srv.id = ev.ID
			dev := pr.srv.id.Device()
			if dev == nil {
				return errors.New("child id has no device")
			}
			if pr.srv.pd, err = dev.AllocPD(); err != nil {
				return err
			}
			if pr.srv.cq, err = dev.CreateCQ(cqDepth(o.srvCQE)); err != nil {
				return err
			}
			var srq verbs.SRQ
			if o.srvSRQ != nil {
				if srq, pr.srv.afterQP, err = o.srvSRQ(dev, pr.srv.pd); err != nil {
					return err
				}
			}
			if pr.srv.qp, err = pr.srv.id.CreateQP(pr.srv.pd, verbs.QPInitAttr{SendCQ: pr.srv.cq, RecvCQ: pr.srv.cq, Type: verbs.QPTRC, SRQ: srq,
				Cap: verbs.QPCap{MaxSendWR: 32, MaxRecvWR: 32, MaxSendSGE: 1, MaxRecvSGE: 1}}); err != nil {
				return err
			}
			if a, err := pr.srv.qp.Query(); err == nil {
				pr.srvInitAccess = a.AccessFlags
			}
			if pr.srv.data, err = pr.srv.pd.RegMR(4096, o.srvAccess); err != nil {
				return err
			}
			if pr.srv.msg, err = pr.srv.pd.RegMR(128, verbs.AccessLocalWrite); err != nil {
				return err
			}
			for i := 0; i < o.srvRecvs; i++ {
				if err := pr.srv.qp.PostRecv(verbs.RecvWR{WRID: uint64(100 + i), SGList: []verbs.SGE{{Addr: pr.srv.msg.Addr(), Length: 128, LKey: pr.srv.msg.LKey()}}}); err != nil {
					return err
				}
			}
			priv := o.acceptPriv
			if priv == nil {
				priv = remoteInfo(pr.srv.data)
			}
			if err := pr.srv.id.Accept(verbs.ConnParam{PrivateData: priv, ResponderResources: o.srvRespRes, InitiatorDepth: 1, RNRRetryCount: o.rnrRetry}); err != nil {
				return err
			}
			ev, err = pr.srv.ch.GetEvent(ctx)
			if err != nil {
				return err
			}
			if ev.Type != verbs.EventEstablished || ev.ID != pr.srv.id {
				return errors.New("server: want ESTABLISHED on the child id, got " + ev.Type.String())
			}
			return nil
		}()
	}()
	ev := event(t, pr.cli.ch, verbs.EventEstablished)
	if ev.ID != pr.cli.id {
		t.Fatalf("ESTABLISHED for another id")
	}
	pr.estPriv = ev.PrivateData
	if err := <-srvDone; err != nil {
		t.Fatalf("server: %v", err)
	}
	return pr
}

// remoteInfo is the seed's 32-byte struct remote_info (doorbell = same MR).
func remoteInfo(mr verbs.MR) []byte {
	b := make([]byte, 32)
	binary.BigEndian.PutUint64(b[0:], mr.Addr())
	binary.BigEndian.PutUint32(b[8:], mr.RKey())
	binary.BigEndian.PutUint32(b[12:], uint32(mr.Len()))
	binary.BigEndian.PutUint64(b[16:], mr.Addr())
	binary.BigEndian.PutUint32(b[24:], mr.RKey())
	binary.BigEndian.PutUint32(b[28:], 8)
	return b
}

func (pr *pair) close(t testing.TB) {
	if pr.cli.id != nil && pr.srv.id != nil {
		// The active side's DISCONNECTED comes with the DREP, which the
		// kernel sends only when the passive side calls rdma_disconnect
		// too (as the seed's server does); otherwise it waits for the
		// DREQ to time out.
		start := time.Now()
		wait := func(name string, ch verbs.EventChannel) {
			ctx, cancel := context.WithTimeout(context.Background(), evTimeout)
			defer cancel()
			for {
				ev, err := ch.GetEvent(ctx)
				if err != nil {
					t.Errorf("%s: waiting for DISCONNECTED: %v", name, err)
					return
				}
				t.Logf("%s: %s status %d after %v", name, ev.Type, ev.Status, time.Since(start))
				if ev.Type == verbs.EventDisconnected {
					return
				}
			}
		}
		if err := pr.cli.id.Disconnect(); err != nil {
			t.Errorf("client rdma_disconnect: %v", err)
		} else {
			wait("server", pr.srv.ch)
			if err := pr.srv.id.Disconnect(); err != nil {
				t.Errorf("server rdma_disconnect: %v", err)
			}
			wait("client", pr.cli.ch)
		}
	}
	pr.cli.teardown(t)
	pr.srv.teardown(t)
	if pr.listener != nil {
		if err := pr.listener.Destroy(); err != nil {
			t.Errorf("destroy listener: %v", err)
		}
	}
	for _, ch := range []verbs.EventChannel{pr.cli.ch, pr.srv.ch} {
		if ch != nil {
			if err := ch.Destroy(); err != nil {
				t.Errorf("rdma_destroy_event_channel: %v", err)
			}
		}
	}
	if n := pr.p.Live(); n.Total() != 0 {
		t.Errorf("Live after teardown: %+v", n)
	}
}

func waitWC(t testing.TB, cq verbs.CQ) verbs.WC {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), evTimeout)
	defer cancel()
	wc, err := verbs.PollOne(ctx, cq)
	if err != nil {
		t.Fatalf("waiting for a completion: %v", err)
	}
	return wc
}

func (s *side) post(t testing.TB, wr verbs.SendWR) {
	t.Helper()
	if err := s.qp.PostSend(wr); err != nil {
		t.Fatal(err)
	}
}

func TestLoopbackOps(t *testing.T) {
	p := open(t)
	addr := rdmaAddr(t, p)
	pr := connect(t, p, addr, defaults())
	cli, srv := &pr.cli, &pr.srv

	t.Logf("client saw accept private_data_len=%d (server sent 32)", len(pr.estPriv))
	if len(pr.estPriv) < 32 || !bytes.Equal(pr.estPriv[:32], remoteInfo(srv.data)) {
		t.Fatalf("private data %x", pr.estPriv)
	}
	for name, s := range map[string]*side{"client": cli, "server": srv} {
		a := must(s.qp.Query())(t)
		t.Logf("%s QP 0x%x: state %s mtu %d dest_qp 0x%x sq_psn %d rq_psn %d access %s rd_atomic %d/%d timeout %d retry %d rnr_retry %d min_rnr %d port %d cap %+v",
			name, s.qp.Num(), a.State, a.PathMTU, a.DestQPNum, a.SQPSN, a.RQPSN, a.AccessFlags, a.MaxRdAtomic, a.MaxDestRdAtom, a.Timeout, a.RetryCnt, a.RNRRetry, a.MinRNRTimer, a.PortNum, a.Cap)
		if a.State != verbs.QPSRTS {
			t.Errorf("%s QP state %s, want RTS", name, a.State)
		}
	}
	if a := must(cli.qp.Query())(t); a.DestQPNum != srv.qp.Num() {
		t.Errorf("client dest_qp_num 0x%x, server qp 0x%x", a.DestQPNum, srv.qp.Num())
	}
	t.Logf("client local %s peer %s port_num %d; server local %s peer %s", cli.id.LocalAddr(), cli.id.PeerAddr(), cli.id.PortNum(), srv.id.LocalAddr(), srv.id.PeerAddr())
	if cli.id.Device() != srv.id.Device() {
		t.Errorf("one ibv_context should give one Device")
	}
	before := must(cli.id.Device().Counters(cli.id.PortNum()))(t)

	// SEND / RECV (the server posted RECV wr_id 100 before accepting).
	noErr(t, cli.msg.Write(0, []byte("RDMA_WRITE_DONE\x00")))
	cli.post(t, verbs.SendWR{WRID: 200, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: cli.msg.Addr(), Length: 16, LKey: cli.msg.LKey()}}})
	if wc := waitWC(t, cli.cq); wc.Status != verbs.WCSuccess || wc.Opcode != verbs.WCSend || wc.WRID != 200 {
		t.Fatalf("SEND wc %+v (%s)", wc, wc.Status)
	}
	wc := waitWC(t, srv.cq)
	if wc.Status != verbs.WCSuccess || wc.Opcode != verbs.WCRecv || wc.WRID != 100 || wc.ByteLen != 16 || wc.QPNum != srv.qp.Num() {
		t.Fatalf("RECV wc %+v (%s)", wc, wc.Status)
	}
	if got := must(srv.msg.Read(0, 16))(t); string(got) != "RDMA_WRITE_DONE\x00" {
		t.Fatalf("RECV buffer %q", got)
	}
	t.Logf("SEND/RECV ok: %+v", wc)

	// RDMA WRITE into the server's data MR.
	msg := []byte("hello from rdmacore via RDMA WRITE")
	noErr(t, cli.data.Write(0, msg))
	cli.post(t, verbs.SendWR{WRID: 300, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: uint32(len(msg)), LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr() + 100, RKey: srv.data.RKey()})
	if wc := waitWC(t, cli.cq); wc.Status != verbs.WCSuccess || wc.Opcode != verbs.WCRDMAWrite {
		t.Fatalf("WRITE wc %+v (%s)", wc, wc.Status)
	}
	if got := must(srv.data.Read(100, len(msg)))(t); !bytes.Equal(got, msg) {
		t.Fatalf("server buffer %q", got)
	}
	if wcs := must(srv.cq.Poll(4))(t); len(wcs) != 0 {
		t.Fatalf("RDMA WRITE produced a responder completion: %+v", wcs)
	}

	// RDMA WRITE WITH IMM: consumes a RECV, the imm shows at the responder.
	if err := srv.qp.PostRecv(verbs.RecvWR{WRID: 101, SGList: []verbs.SGE{{Addr: srv.msg.Addr(), Length: 128, LKey: srv.msg.LKey()}}}); err != nil {
		t.Fatal(err)
	}
	cli.post(t, verbs.SendWR{WRID: 301, Opcode: verbs.WRRDMAWriteWithImm, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 8, LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr() + 1000, RKey: srv.data.RKey(), ImmData: 0x12345678})
	if wc := waitWC(t, cli.cq); wc.Status != verbs.WCSuccess || wc.Opcode != verbs.WCRDMAWrite {
		t.Fatalf("WRITE_WITH_IMM wc %+v (%s)", wc, wc.Status)
	}
	wc = waitWC(t, srv.cq)
	if wc.Status != verbs.WCSuccess || wc.Opcode != verbs.WCRecvRDMAWithImm || !wc.HasImm || wc.ImmData != 0x12345678 || wc.WRID != 101 || wc.ByteLen != 8 {
		t.Fatalf("responder wc %+v (%s %s)", wc, wc.Status, wc.Opcode)
	}
	t.Logf("WRITE_WITH_IMM responder wc: opcode %s imm 0x%x byte_len %d", wc.Opcode, wc.ImmData, wc.ByteLen)

	// RDMA READ from the server's MR.
	pattern := bytes.Repeat([]byte{0xA5, 0x5A, 0x01, 0x02}, 256)
	noErr(t, srv.data.Write(2048, pattern))
	cli.post(t, verbs.SendWR{WRID: 400, Opcode: verbs.WRRDMARead, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr() + 2048, Length: 1024, LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr() + 2048, RKey: srv.data.RKey()})
	if wc := waitWC(t, cli.cq); wc.Status != verbs.WCSuccess || wc.Opcode != verbs.WCRDMARead || wc.ByteLen != 1024 {
		t.Fatalf("READ wc %+v (%s)", wc, wc.Status)
	}
	if got := must(cli.data.Read(2048, 1024))(t); !bytes.Equal(got, pattern) {
		t.Fatalf("READ data differs")
	}

	time.Sleep(100 * time.Millisecond) // sysfs caches hw_counters for 10 ms
	after := must(cli.id.Device().Counters(cli.id.PortNum()))(t)
	changed := 0
	for k, v := range after {
		if v != before[k] {
			changed++
			t.Logf("counter %s: %d -> %d", k, before[k], v)
		}
	}
	if len(after) > 0 && changed == 0 {
		t.Errorf("no hw counter changed over %d counters", len(after))
	}
}

// errorPair posts one bad WRITE and one good WRITE behind it and checks the
// statuses: the bad one fails with want, the next is flushed, QP in ERR.
func errorPair(t *testing.T, pr *pair, rkey uint32, want verbs.WCStatus) {
	cli, srv := &pr.cli, &pr.srv
	cli.post(t, verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 64, LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr(), RKey: rkey})
	wc := waitWC(t, cli.cq)
	t.Logf("bad WRITE: wc status %d %q (%s) vendor_err %d opcode %s", int(wc.Status), wc.Status, wc.Status.CName(), wc.VendorErr, wc.Opcode)
	if wc.Status != want || wc.WRID != 1 {
		t.Fatalf("wc %+v: status %q, want %q", wc, wc.Status, want)
	}
	st := must(cli.qp.Query())(t).State
	t.Logf("client QP state after the error: %s", st)
	if st != verbs.QPSErr {
		t.Errorf("QP state %s, want ERR", st)
	}
	err := cli.qp.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 64, LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr(), RKey: srv.data.RKey()})
	if err != nil {
		t.Logf("post_send in ERR returned %v", err)
		return
	}
	wc = waitWC(t, cli.cq)
	t.Logf("next WR: wc status %q (%s)", wc.Status, wc.Status.CName())
	if wc.Status != verbs.WCWRFlushErr || wc.WRID != 2 {
		t.Fatalf("next wc %+v: %q, want %q", wc, wc.Status, verbs.WCWRFlushErr)
	}
}

func TestBadRKey(t *testing.T) {
	p := open(t)
	pr := connect(t, p, rdmaAddr(t, p), defaults())
	errorPair(t, pr, pr.srv.data.RKey()^0x5a5a00, verbs.WCRemAccessErr)
}

func TestMRWithoutRemoteWrite(t *testing.T) {
	p := open(t)
	o := defaults()
	o.srvAccess = verbs.AccessLocalWrite | verbs.AccessRemoteRead
	pr := connect(t, p, rdmaAddr(t, p), o)
	errorPair(t, pr, pr.srv.data.RKey(), verbs.WCRemAccessErr)
}

func TestRNRRetryExceeded(t *testing.T) {
	p := open(t)
	o := defaults()
	o.rnrRetry = 0
	o.srvRecvs = 0
	pr := connect(t, p, rdmaAddr(t, p), o)
	a := must(pr.cli.qp.Query())(t)
	t.Logf("client QP rnr_retry %d min_rnr_timer %d", a.RNRRetry, a.MinRNRTimer)
	noErr(t, pr.cli.msg.Write(0, []byte("no one listens")))
	start := time.Now()
	pr.cli.post(t, verbs.SendWR{WRID: 7, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: pr.cli.msg.Addr(), Length: 15, LKey: pr.cli.msg.LKey()}}})
	wc := waitWC(t, pr.cli.cq)
	t.Logf("SEND without RECV: wc status %d %q (%s) after %v", int(wc.Status), wc.Status, wc.Status.CName(), time.Since(start))
	if wc.Status != verbs.WCRNRRetryExcErr {
		t.Fatalf("status %q, want %q", wc.Status, verbs.WCRNRRetryExcErr)
	}
}

func TestPostSendInInit(t *testing.T) {
	p := open(t)
	addr := rdmaAddr(t, p)
	ch := must(p.CreateEventChannel())(t)
	s := side{ch: ch, id: must(ch.CreateID(verbs.PSTCP))(t)}
	if err := s.id.ResolveAddr(netip.AddrPort{}, netip.AddrPortFrom(addr, port()), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	event(t, ch, verbs.EventAddrResolved)
	s.build(t, verbs.AccessLocalWrite, 0)
	if st := must(s.qp.Query())(t).State; st != verbs.QPSInit {
		t.Fatalf("state %s, want INIT", st)
	}
	err := s.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: s.msg.Addr(), Length: 8, LKey: s.msg.LKey()}}})
	t.Logf("ibv_post_send in INIT: %v", err)
	var ve *verbs.Error
	if err == nil {
		wc := waitWC(t, s.cq)
		t.Logf("post in INIT was accepted; completion %q", wc.Status)
	} else if !errors.As(err, &ve) || ve.Func != "ibv_post_send" || ve.Errno == 0 {
		t.Fatalf("error %v", err)
	}
	// ibv_post_recv is legal in INIT.
	if err := s.qp.PostRecv(verbs.RecvWR{WRID: 2, SGList: []verbs.SGE{{Addr: s.msg.Addr(), Length: 128, LKey: s.msg.LKey()}}}); err != nil {
		t.Errorf("ibv_post_recv in INIT: %v", err)
	}
	// Errors for misuse: a PD with live MRs, a CQ with a QP.
	if err := s.pd.Dealloc(); !errors.Is(err, syscall.EBUSY) {
		t.Errorf("dealloc busy pd: %v", err)
	}
	if err := s.cq.Destroy(); !errors.Is(err, syscall.EBUSY) {
		t.Errorf("destroy busy cq: %v", err)
	}
	s.teardown(t)
	if err := ch.Destroy(); err != nil {
		t.Fatal(err)
	}
	if n := p.Live(); n.Total() != 0 {
		t.Fatalf("Live: %+v", n)
	}
}

func TestMRBounds(t *testing.T) {
	p := open(t)
	addr := rdmaAddr(t, p)
	ch := must(p.CreateEventChannel())(t)
	id := must(ch.CreateID(verbs.PSTCP))(t)
	if err := id.BindAddr(netip.AddrPortFrom(addr, 0)); err != nil {
		t.Fatal(err)
	}
	dev := id.Device()
	if dev == nil {
		t.Fatal("bound id has no device")
	}
	pd := must(dev.AllocPD())(t)
	mr := must(pd.RegMR(100, verbs.AccessLocalWrite|verbs.AccessRemoteWrite))(t)
	t.Logf("MR addr 0x%x len %d lkey 0x%x rkey 0x%x access %s pd handle %d", mr.Addr(), mr.Len(), mr.LKey(), mr.RKey(), mr.Access(), pd.Handle())
	if mr.Addr()%4096 != 0 {
		t.Errorf("MR not page aligned")
	}
	if b := must(mr.Read(0, 100))(t); !bytes.Equal(b, make([]byte, 100)) {
		t.Errorf("MR not zeroed")
	}
	for _, c := range []struct{ off, n int }{{-1, 1}, {0, 101}, {100, 1}, {99, 2}, {1 << 62, 1 << 62}} {
		if _, err := mr.Read(c.off, c.n); err == nil {
			t.Errorf("Read(%d, %d) succeeded", c.off, c.n)
		}
		if err := mr.Write(c.off, make([]byte, max(c.n, 0)%1000)); err == nil && c.n%1000 != 0 {
			t.Errorf("Write(%d, %d) succeeded", c.off, c.n)
		}
	}
	noErr(t, mr.Write(96, []byte{1, 2, 3, 4}))
	if b := must(mr.Read(96, 4))(t); !bytes.Equal(b, []byte{1, 2, 3, 4}) {
		t.Errorf("read back %v", b)
	}
	if err := mr.Dereg(); err != nil {
		t.Fatal(err)
	}
	if _, err := mr.Read(0, 1); err == nil {
		t.Errorf("Read after Dereg succeeded")
	}
	pa := must(dev.QueryPort(id.PortNum()))(t)
	g := must(dev.QueryGID(id.PortNum(), 1))(t)
	t.Logf("port %d: %s mtu %d, gid[1] %s", pa.Num, pa.State, pa.ActiveMTU, g)
	if err := pd.Dealloc(); err != nil {
		t.Fatal(err)
	}
	if err := id.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := ch.Destroy(); err != nil {
		t.Fatal(err)
	}
	if n := p.Live(); n.Total() != 0 {
		t.Fatalf("Live: %+v", n)
	}
}

// TestConcurrentQuery: a TUI refresh reads QP state, counters and device
// info while a step posts and polls.
func TestConcurrentQuery(t *testing.T) {
	p := open(t)
	pr := connect(t, p, rdmaAddr(t, p), defaults())
	cli, srv := &pr.cli, &pr.srv
	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				done <- n
				return
			default:
			}
			if _, err := cli.qp.Query(); err != nil {
				t.Error(err)
			}
			if _, err := srv.data.Read(0, 64); err != nil {
				t.Error(err)
			}
			cli.id.Device().Counters(1)
			_ = p.Live()
			n++
		}
	}()
	for i := 0; i < 200; i++ {
		cli.post(t, verbs.SendWR{WRID: uint64(i), Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
			SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 64, LKey: cli.data.LKey()}},
			RemoteAddr: srv.data.Addr(), RKey: srv.data.RKey()})
		if wc := waitWC(t, cli.cq); wc.Status != verbs.WCSuccess {
			t.Fatalf("wc %+v", wc)
		}
	}
	close(stop)
	t.Logf("%d concurrent queries while 200 WRITEs completed", <-done)
}
