package sim

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

var loopback = netip.AddrFrom4([4]byte{127, 0, 0, 1})

type side struct {
	p    *Provider
	ch   verbs.EventChannel
	lid  verbs.CMID // server only
	id   verbs.CMID
	pd   verbs.PD
	cq   verbs.CQ
	qp   verbs.QP
	mrs  []verbs.MR
	last verbs.CMEvent // the ESTABLISHED / CONNECT_REQUEST event
	// initAccess is the QP's qp_access_flags right after rdma_create_qp.
	initAccess verbs.Access
}

type pairCfg struct {
	opts      Options
	cqe       int
	caps      verbs.QPCap
	connect   verbs.ConnParam
	accept    verbs.ConnParam
	sigAll    bool
	noCleanup bool
	// keepRdAtomic: use connect/accept's responder_resources and
	// initiator_depth as given, 0 included.
	keepRdAtomic bool
	// serverPcap, if set, is the server's Options.Pcap (the client's NIC
	// writes none, so each frame is written once).
	serverPcap io.Writer
	// via, if set, is where the client connects instead of the server's
	// listener (given the listener's address): a proxy on the wire.
	via func(server netip.AddrPort) netip.AddrPort
	// srvSRQ, if set, is the SRQ the server's QP is created with (given
	// its device and the QP's PD).
	srvSRQ func(dev verbs.Device, qpPD verbs.PD) verbs.SRQ
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func waitEvent(t testing.TB, ch verbs.EventChannel, want verbs.CMEventType) verbs.CMEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev, err := ch.GetEvent(ctx)
	if err != nil {
		t.Fatalf("waiting for %s: %v", want, err)
	}
	if ev.Type != want {
		t.Fatalf("got %s (status %d), want %s", ev.Type, ev.Status, want)
	}
	return ev
}

func (s *side) setupVerbs(t testing.TB, cfg pairCfg) {
	t.Helper()
	dev := s.id.Device()
	if dev == nil {
		t.Fatal("id has no device")
	}
	var err error
	s.pd, err = dev.AllocPD()
	must(t, err)
	s.cq, err = dev.CreateCQ(cfg.cqe)
	must(t, err)
	var srq verbs.SRQ
	if cfg.srvSRQ != nil && s.lid != nil { // the server's side
		srq = cfg.srvSRQ(dev, s.pd)
	}
	s.qp, err = s.id.CreateQP(s.pd, verbs.QPInitAttr{SendCQ: s.cq, RecvCQ: s.cq, Type: verbs.QPTRC, Cap: cfg.caps, SigAll: cfg.sigAll, SRQ: srq})
	must(t, err)
	a, err := s.qp.Query()
	must(t, err)
	s.initAccess = a.AccessFlags
}

func (s *side) regMR(t testing.TB, n int, acc verbs.Access) verbs.MR {
	t.Helper()
	mr, err := s.pd.RegMR(n, acc)
	must(t, err)
	s.mrs = append(s.mrs, mr)
	return mr
}

// testACKTimeout is the timeout code connectPair's QPs get (67 ms).
const testACKTimeout = 14

// connectPair builds a connected server/client pair on two providers.
func connectPair(t testing.TB, cfg pairCfg) (srv, cli *side) {
	t.Helper()
	if cfg.cqe == 0 {
		cfg.cqe = 64
	}
	if cfg.caps.MaxSendWR == 0 {
		cfg.caps = verbs.QPCap{MaxSendWR: 32, MaxRecvWR: 32, MaxSendSGE: 2, MaxRecvSGE: 2}
	}
	// Like the seed (and rdmatour), one READ/atomic each way unless a test
	// asks otherwise: with 0 the peer's QP has no REMOTE_READ (cmAccess).
	if !cfg.keepRdAtomic {
		for _, p := range []*verbs.ConnParam{&cfg.connect, &cfg.accept} {
			p.ResponderResources, p.InitiatorDepth = max(p.ResponderResources, 1), max(p.InitiatorDepth, 1)
		}
	}
	// The tests are about what a timeout does, not how long rxe's 2.15 s
	// takes: unless a test asks, rdma_cm's QPs here get timeout 14 (67 ms).
	if cfg.opts.ACKTimeout == 0 {
		cfg.opts.ACKTimeout = testACKTimeout
	}
	srvOpts := cfg.opts
	srvOpts.Pcap = cfg.serverPcap
	srv = &side{p: New(srvOpts)}
	cli = &side{p: New(cfg.opts)}
	var err error
	srv.ch, err = srv.p.CreateEventChannel()
	must(t, err)
	srv.lid, err = srv.ch.CreateID(verbs.PSTCP)
	must(t, err)
	must(t, srv.lid.BindAddr(netip.AddrPortFrom(loopback, 0)))
	must(t, srv.lid.Listen(1))

	cli.ch, err = cli.p.CreateEventChannel()
	must(t, err)
	cli.id, err = cli.ch.CreateID(verbs.PSTCP)
	must(t, err)
	dst := srv.lid.LocalAddr()
	if cfg.via != nil {
		dst = cfg.via(dst)
	}
	must(t, cli.id.ResolveAddr(netip.AddrPort{}, dst, time.Second))
	waitEvent(t, cli.ch, verbs.EventAddrResolved)
	must(t, cli.id.ResolveRoute(time.Second))
	waitEvent(t, cli.ch, verbs.EventRouteResolved)
	cli.setupVerbs(t, cfg)
	must(t, cli.id.Connect(cfg.connect))

	srv.last = waitEvent(t, srv.ch, verbs.EventConnectRequest)
	srv.id = srv.last.ID
	srv.setupVerbs(t, cfg)
	must(t, srv.id.Accept(cfg.accept))
	cli.last = waitEvent(t, cli.ch, verbs.EventEstablished)
	waitEvent(t, srv.ch, verbs.EventEstablished)
	if !cfg.noCleanup {
		t.Cleanup(func() { teardown(t, srv, cli) })
	}
	return srv, cli
}

// teardown destroys everything in reverse order and checks that nothing
// is left: no live objects, no goroutines.
func teardown(t testing.TB, sides ...*side) {
	t.Helper()
	for _, s := range sides {
		if s.id != nil {
			s.id.Disconnect() // may fail if already disconnected
			if s.qp != nil {
				must(t, s.id.DestroyQP())
			}
		}
		for _, m := range s.mrs {
			must(t, m.Dereg())
		}
		if s.cq != nil {
			must(t, s.cq.Destroy())
		}
		if s.pd != nil {
			must(t, s.pd.Dealloc())
		}
		if s.id != nil {
			must(t, s.id.Destroy())
		}
		if s.lid != nil {
			must(t, s.lid.Destroy())
		}
		if s.ch != nil {
			must(t, s.ch.Destroy())
		}
	}
	for _, s := range sides {
		if n := s.p.Live(); n.Total() != 0 {
			t.Errorf("live objects after teardown: %+v", n)
		}
		waitGoroutines(t, s.p)
	}
}

func waitGoroutines(t testing.TB, p *Provider) {
	t.Helper()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("provider goroutines still running 10 s after teardown")
	}
}

// pollN polls until n completions arrived.
func pollN(t testing.TB, cq verbs.CQ, n int) []verbs.WC {
	t.Helper()
	var out []verbs.WC
	deadline := time.Now().Add(10 * time.Second)
	for len(out) < n {
		wcs, err := cq.Poll(n - len(out))
		must(t, err)
		out = append(out, wcs...)
		if time.Now().After(deadline) {
			t.Fatalf("got %d of %d completions: %+v", len(out), n, out)
		}
		if len(wcs) == 0 {
			time.Sleep(200 * time.Microsecond)
		}
	}
	return out
}

// noMore checks the CQ stays empty for a moment.
func noMore(t testing.TB, cq verbs.CQ) {
	t.Helper()
	time.Sleep(20 * time.Millisecond)
	wcs, err := cq.Poll(16)
	must(t, err)
	if len(wcs) != 0 {
		t.Fatalf("unexpected completions: %+v", wcs)
	}
}

func wantStatus(t testing.TB, wc verbs.WC, wrid uint64, st verbs.WCStatus) {
	t.Helper()
	if wc.WRID != wrid || wc.Status != st {
		t.Fatalf("completion wr_id=%d status=%q (%s), want wr_id=%d %q", wc.WRID, wc.Status, wc.Status.CName(), wrid, st)
	}
}

func wantErrno(t testing.TB, err error, fn string, errno syscall.Errno) {
	t.Helper()
	var e *verbs.Error
	if !errors.As(err, &e) || e.Func != fn || e.Errno != errno {
		t.Fatalf("err = %v, want %s with %s", err, fn, verbs.ErrnoName(errno))
	}
}

func qpState(t testing.TB, q verbs.QP) verbs.QPState {
	t.Helper()
	a, err := q.Query()
	must(t, err)
	return a.State
}

func sge(mr verbs.MR, off, n int) []verbs.SGE {
	return []verbs.SGE{{Addr: mr.Addr() + uint64(off), Length: uint32(n), LKey: mr.LKey()}}
}
