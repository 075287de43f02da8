package sim

// The passive side's CM: rdma_listen, the accept loop, and the handshake
// that turns a peer's REQ into a child id and a CONNECT_REQUEST.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Listen is rdma_listen. The backlog is not enforced.
func (id *cmID) Listen(backlog int) error {
	const fn = "rdma_listen"
	id.mu.Lock()
	if id.destroyed || (id.state != stBound && id.state != stIdle) {
		id.mu.Unlock()
		return verbs.Errorf(fn, errEINVAL, "id is not bound")
	}
	if id.state == stIdle { // rdma_listen on an unbound id binds to the wildcard
		id.mu.Unlock()
		if err := id.BindAddr(netip.AddrPortFrom(netip.IPv4Unspecified(), 0)); err != nil {
			return err
		}
		id.mu.Lock()
	}
	id.state = stListen
	id.pending = map[net.Conn]struct{}{}
	ln := id.ln
	id.mu.Unlock()
	id.p.goStart(func() { id.acceptLoop(ln) })
	return nil
}

// Accept backs off this long after its first failure, doubling up to
// maxAcceptBackoff: long enough not to spin on EMFILE, short enough that
// an attendee who comes once descriptors are free waits no longer than
// the CM's own retry would make them.
const (
	minAcceptBackoff = 5 * time.Millisecond
	maxAcceptBackoff = time.Second
)

// acceptWarning says what a failed Accept means for the person running
// the listener, and what to do when it is the descriptor limit.
func acceptWarning(err error) string {
	line := fmt.Sprintf("the simulated NIC cannot accept a connection (%v); it retries until it can", err)
	if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
		line += ": the process is out of file descriptors (EMFILE): raise `ulimit -n`, or wait for idle connections to close"
	}
	return line
}

// acceptLoop accepts peers until the listener is closed. Any other Accept
// error — EMFILE, ENFILE or ENOBUFS after a burst of connections — is
// logged once and retried with a backoff: returning on it, as a first
// version did, left a listener that still said it listened and answered
// nobody for the rest of the process.
func (id *cmID) acceptLoop(ln net.Listener) {
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return // listener closed by Destroy
			}
			if backoff == 0 {
				id.p.warn(acceptWarning(err))
			}
			backoff = min(max(2*backoff, minAcceptBackoff), maxAcceptBackoff)
			time.Sleep(backoff)
			continue
		}
		if backoff > 0 {
			id.p.warn("the simulated NIC accepts connections again")
			backoff = 0
		}
		id.mu.Lock()
		if id.destroyed {
			id.mu.Unlock()
			nc.Close()
			return
		}
		id.pending[nc] = struct{}{}
		id.mu.Unlock()
		id.p.goStart(func() { id.handshake(nc) })
	}
}

// handshake reads a peer's preamble and REQ. Anything else, or silence
// past the CM timeout, and the TCP connection is dropped without an event.
func (id *cmID) handshake(nc net.Conn) {
	adopted := false
	defer func() {
		if !adopted {
			id.mu.Lock()
			delete(id.pending, nc)
			id.mu.Unlock()
			nc.Close()
		}
	}()
	in, buf, m, ok := id.readRequest(nc)
	if !ok {
		return
	}
	child := id.childFor(nc, m)
	id.mu.Lock()
	if !id.adoptLocked(nc, child) {
		id.mu.Unlock()
		return
	}
	adopted = true
	c := id.deliverRequestLocked(nc, in, child, m)
	id.mu.Unlock()
	child.readLoop(c, buf)
}

// readRequest reads the preamble and the REQ (or SIDR REQ) of this
// listener's port space within the CM timeout; a request of the other
// port space is answered as rdma_cm would, anything else just dropped.
func (id *cmID) readRequest(nc net.Conn) (connIn, []byte, cmMsg, bool) {
	nc.SetReadDeadline(time.Now().Add(id.p.opts.CMTimeout))
	in := newConnIn(nc)
	br := in.br
	if err := readPreamble(br); err != nil {
		id.p.log.Debug("sim: dropping non-rdmatour peer", "peer", nc.RemoteAddr(), "err", err)
		return connIn{}, nil, cmMsg{}, false
	}
	buf := make([]byte, frameBuffer)
	kind, body, err := readFrame(br, buf)
	if err != nil || kind != kindCM {
		id.p.log.Debug("sim: dropping peer without REQ", "peer", nc.RemoteAddr(), "err", err)
		return connIn{}, nil, cmMsg{}, false
	}
	m, err := decodeCM(body)
	if err == nil && m.Type != requestType(id.ps) && (m.Type == cmREQ || m.Type == cmSIDRReq) {
		answerOtherPortSpace(nc, m.Type)
		return connIn{}, nil, cmMsg{}, false
	}
	if err != nil || m.Type != requestType(id.ps) {
		id.p.log.Debug("sim: dropping peer with bad REQ", "peer", nc.RemoteAddr(), "err", err)
		return connIn{}, nil, cmMsg{}, false
	}
	nc.SetReadDeadline(time.Time{})
	return in, buf, m, true
}

// childFor makes the id a REQ creates on the passive side, with what the
// CM learned from the REQ.
func (id *cmID) childFor(nc net.Conn, m cmMsg) *cmID {
	child := &cmID{p: id.p, ch: id.ch, ps: id.ps, state: stConnectReq, dev: id.p.dev,
		local: addrPortOf(nc.LocalAddr()), peer: addrPortOf(nc.RemoteAddr()), listener: id, req: m}
	child.cmParams = cmParams{seqNum: uint32(rand.N(1 << 24)), peerKnown: true, peerQPN: m.QPN, peerPSN: m.PSN,
		// From the passive side's point of view (ib_cm swaps them).
		respRes: m.InitiatorDepth, initDepth: m.ResponderResources, retryCnt: m.RetryCount, rnrRetry: m.RNRRetryCount}
	return child
}

// adoptLocked registers child on the event channel and hands it the
// connection, unless the listener or its channel is destroyed. From here
// the child owns the connection; the listener's Destroy no longer closes
// it. id.mu is held.
func (id *cmID) adoptLocked(nc net.Conn, child *cmID) bool {
	if id.destroyed {
		return false
	}
	id.ch.mu.Lock()
	if id.ch.destroyed {
		id.ch.mu.Unlock()
		return false
	}
	id.ch.ids[child] = struct{}{}
	id.ch.mu.Unlock()
	delete(id.pending, nc)
	return true
}

// deliverRequestLocked starts the child's connection, answers the
// peer's preamble and posts the CONNECT_REQUEST. id.mu is held, so a
// concurrent Destroy of the listener sees the child on the channel.
func (id *cmID) deliverRequestLocked(nc net.Conn, in connIn, child *cmID, m cmMsg) *conn {
	id.p.count(func(r *verbs.ResourceCount) { r.IDs++ })
	c := newConn(id.p, nc, in)
	c.tap.cm(&m, false) // the REQ, read before the connection existed
	child.conn = c
	id.p.dev.setPeer(m.QPN, child)
	c.send(outItem{raw: preamble()})
	id.ch.post(id.connectRequestEvent(child, m))
	return c
}

// connectRequestEvent is the listener's RDMA_CM_EVENT_CONNECT_REQUEST
// for child's REQ m.
func (id *cmID) connectRequestEvent(child *cmID, m cmMsg) verbs.CMEvent {
	ev := child.event(verbs.EventConnectRequest, 0)
	ev.ListenID = id
	ev.PrivateData = pad(m.PrivateData, reqPrivateDataSize)
	// cma_set_req_event_data swaps the two: they are from the listener's
	// point of view.
	ev.ResponderResources, ev.InitiatorDepth = m.InitiatorDepth, m.ResponderResources
	ev.RNRRetryCount = m.RNRRetryCount
	ev.QPNum = m.QPN
	if id.ps == verbs.PSUDP {
		ev = udRequestEvent(ev, m)
	}
	return ev
}

func pad(b []byte, n int) []byte {
	out := make([]byte, max(n, len(b)))
	copy(out, b)
	return out
}
