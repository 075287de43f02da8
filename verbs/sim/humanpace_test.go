package sim

import (
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// startHandshake brings a client to rdma_connect and the server to its
// CONNECT_REQUEST, on NICs with opts; nothing is accepted yet.
func startHandshake(t *testing.T, opts Options) (srv, cli *side) {
	t.Helper()
	srv, cli = &side{p: New(opts)}, &side{p: New(opts)}
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
	must(t, cli.id.ResolveAddr(netip.AddrPort{}, srv.lid.LocalAddr(), time.Second))
	waitEvent(t, cli.ch, verbs.EventAddrResolved)
	must(t, cli.id.ResolveRoute(time.Second))
	waitEvent(t, cli.ch, verbs.EventRouteResolved)
	cfg := pairCfg{cqe: 16, caps: verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}}
	cli.setupVerbs(t, cfg)
	must(t, cli.id.Connect(verbs.ConnParam{}))
	srv.last = waitEvent(t, srv.ch, verbs.EventConnectRequest)
	srv.id = srv.last.ID
	srv.setupVerbs(t, cfg)
	return srv, cli
}

// As librdmacm does on rxe (measured): the client's QP goes to RTR/RTS
// and its RTU leaves only when the client fetches ESTABLISHED, so the
// server's ESTABLISHED waits for the client's user.
func TestRTUWaitsForTheClientToFetchEstablished(t *testing.T) {
	srv, cli := startHandshake(t, Options{})
	t.Cleanup(func() { teardown(t, srv, cli) })
	must(t, srv.id.Accept(verbs.ConnParam{}))
	time.Sleep(100 * time.Millisecond) // the REP arrives; nobody fetches it
	if st := qpState(t, cli.qp); st != verbs.QPSInit {
		t.Errorf("client QP %s before ESTABLISHED was fetched, want INIT (librdmacm moves it then)", st)
	}
	noEvent(t, srv.ch, 300*time.Millisecond) // the server waits for the client to fetch ESTABLISHED
	waitEvent(t, cli.ch, verbs.EventEstablished)
	if st := qpState(t, cli.qp); st != verbs.QPSRTS {
		t.Errorf("client QP %s after ESTABLISHED, want RTS", st)
	}
	waitEvent(t, srv.ch, verbs.EventEstablished)
}

// The protocol's own timers, shortened here: a server that never accepts
// leaves the client UNREACHABLE (-ETIMEDOUT) once the MRA's grace is
// spent; a client that never fetches ESTABLISHED leaves the server so.
func TestHandshakeTimersGiveUpWithUnreachable(t *testing.T) {
	const grace = 300 * time.Millisecond
	t.Run("no accept", func(t *testing.T) {
		srv, cli := startHandshake(t, Options{HandshakeTimeout: grace})
		t.Cleanup(func() { teardown(t, srv, cli) })
		ev := waitEvent(t, cli.ch, verbs.EventUnreachable)
		if ev.Status != -int(syscall.ETIMEDOUT) {
			t.Errorf("status %d, want -ETIMEDOUT", ev.Status)
		}
	})
	t.Run("no RTU", func(t *testing.T) {
		srv, cli := startHandshake(t, Options{HandshakeTimeout: grace})
		t.Cleanup(func() { teardown(t, srv, cli) })
		must(t, srv.id.Accept(verbs.ConnParam{}))
		ev := waitEvent(t, srv.ch, verbs.EventUnreachable)
		if ev.Status != -int(syscall.ETIMEDOUT) {
			t.Errorf("status %d, want -ETIMEDOUT", ev.Status)
		}
		if st := qpState(t, srv.qp); st != verbs.QPSErr {
			t.Errorf("server QP %s after the REP timed out, want ERR", st)
		}
	})
}
