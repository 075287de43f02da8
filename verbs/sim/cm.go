package sim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// IB CM reject reasons rdma_cm reports as event->status.
const (
	rejInvalidServiceID = 8  // IB_CM_REJ_INVALID_SERVICE_ID: nobody listens
	rejConsumerDefined  = 28 // IB_CM_REJ_CONSUMER_DEFINED: rdma_reject
)

// eventChannel is rdma_event_channel: a queue of CM events.
type eventChannel struct {
	p *Provider

	mu        sync.Mutex
	q         []queuedEvent
	sig       chan struct{} // closed and replaced on every post
	destroyed bool
	ids       map[*cmID]struct{}
}

type idState int

const (
	stIdle idState = iota
	stBound
	stListen
	stAddrResolved
	stRouteResolved
	stConnecting
	stConnectReq // child: CONNECT_REQUEST delivered, not yet accepted
	stAccepted   // child: REP sent, waiting for RTU
	stRepRcvd    // active side without a QP: CONNECT_RESPONSE delivered, RTU not sent (rdma_establish sends it)
	stEstablished
	stDisconnecting // DREQ sent, waiting for DREP
	stDisconnected
	stClosed // rejected, refused, failed
)

// cmID is rdma_cm_id.
type cmID struct {
	p  *Provider
	ch *eventChannel
	ps verbs.PortSpace

	mu               sync.Mutex
	state            idState
	destroyed        bool
	dev              *device
	local            netip.AddrPort
	peer             netip.AddrPort
	ln               net.Listener
	pending          map[net.Conn]struct{} // listener: connections still in handshake
	conn             *conn
	qp               *qp
	listener         *cmID
	req              cmMsg // child: the REQ
	cancel           context.CancelFunc
	discTimer        *time.Timer
	rtuTimer         *time.Timer // passive side: REP sent, the RTU not yet in
	passive          bool        // disconnected by the peer's DREQ
	connDead         bool
	disconnectCalled bool

	// What the CM knows for rdma_init_qp_attr (ib_cm's cm_id_priv).
	seqNum    uint32 // this side's starting PSN when the id has no QP (kernel: id_priv->seq_num)
	psnSent   bool   // localPSN went out in the REQ/REP
	localPSN  uint32
	peerKnown bool // the peer's QPN and PSN arrived (REQ on the passive side, REP on the active)
	peerQPN   uint32
	peerPSN   uint32
	respRes   uint8 // responder_resources (-> max_dest_rd_atomic)
	initDepth uint8 // initiator_depth (-> max_rd_atomic)
	retryCnt  uint8
	rnrRetry  uint8
}

var _ verbs.CMID = (*cmID)(nil)

func (id *cmID) isDestroyed() bool {
	id.mu.Lock()
	defer id.mu.Unlock()
	return id.destroyed
}

func (id *cmID) event(t verbs.CMEventType, status int) verbs.CMEvent {
	return verbs.CMEvent{Type: t, Status: status, ID: id}
}

func errnoOf(err error, def syscall.Errno) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return def
}

func addrPortOf(a net.Addr) netip.AddrPort {
	if t, ok := a.(*net.TCPAddr); ok {
		ap := t.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	return netip.AddrPort{}
}

// BindAddr is rdma_bind_addr. The TCP port is reserved here, so a port in
// use fails at bind time exactly as with rdma_cm.
func (id *cmID) BindAddr(addr netip.AddrPort) error {
	const fn = "rdma_bind_addr"
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.state != stIdle {
		return verbs.Errorf(fn, errEINVAL, "id is already bound")
	}
	if !addr.Addr().IsValid() {
		return verbs.Errorf(fn, errEINVAL, "no address")
	}
	a := addr.Addr().Unmap()
	network := "tcp4"
	if a.Is6() {
		network = "tcp6"
	}
	ln, err := net.Listen(network, netip.AddrPortFrom(a, addr.Port()).String())
	if err != nil {
		return &verbs.Error{Func: fn, Errno: errnoOf(err, errEINVAL), Detail: err.Error()}
	}
	id.ln = ln
	id.local = addrPortOf(ln.Addr())
	if !a.IsUnspecified() {
		// Bound to a device address: id->verbs is set. On a wildcard it
		// stays NULL until a CONNECT_REQUEST's child id.
		id.dev = id.p.dev
	}
	id.state = stBound
	return nil
}

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
	ok := false
	defer func() {
		if !ok {
			id.mu.Lock()
			delete(id.pending, nc)
			id.mu.Unlock()
			nc.Close()
		}
	}()
	nc.SetReadDeadline(time.Now().Add(id.p.opts.CMTimeout))
	br := bufio.NewReaderSize(nc, 256<<10)
	if err := readPreamble(br); err != nil {
		id.p.log.Debug("sim: dropping non-rdmatour peer", "peer", nc.RemoteAddr(), "err", err)
		return
	}
	buf := make([]byte, maxFrameBody)
	kind, body, err := readFrame(br, buf)
	if err != nil || kind != kindCM {
		id.p.log.Debug("sim: dropping peer without REQ", "peer", nc.RemoteAddr(), "err", err)
		return
	}
	m, err := decodeCM(body)
	if err == nil && m.Type != requestType(id.ps) && (m.Type == cmREQ || m.Type == cmSIDRReq) {
		answerOtherPortSpace(nc, m.Type)
		return
	}
	if err != nil || m.Type != requestType(id.ps) {
		id.p.log.Debug("sim: dropping peer with bad REQ", "peer", nc.RemoteAddr(), "err", err)
		return
	}
	nc.SetReadDeadline(time.Time{})

	child := &cmID{p: id.p, ch: id.ch, ps: id.ps, state: stConnectReq, dev: id.p.dev,
		local: addrPortOf(nc.LocalAddr()), peer: addrPortOf(nc.RemoteAddr()), listener: id, req: m,
		seqNum: uint32(rand.N(1 << 24)), peerKnown: true, peerQPN: m.QPN, peerPSN: m.PSN,
		// From the passive side's point of view (ib_cm swaps them).
		respRes: m.InitiatorDepth, initDepth: m.ResponderResources, retryCnt: m.RetryCount, rnrRetry: m.RNRRetryCount}
	id.mu.Lock()
	if id.destroyed {
		id.mu.Unlock()
		return
	}
	id.ch.mu.Lock()
	if id.ch.destroyed {
		id.ch.mu.Unlock()
		id.mu.Unlock()
		return
	}
	id.ch.ids[child] = struct{}{}
	id.ch.mu.Unlock()
	// From here the child owns the connection; the listener's Destroy no
	// longer closes it.
	delete(id.pending, nc)
	ok = true
	id.p.count(func(r *verbs.ResourceCount) { r.IDs++ })
	c := newConn(id.p, nc, br)
	c.tap.cm(&m, false) // the REQ, read before the connection existed
	child.conn = c
	id.p.dev.setPeer(m.QPN, child)
	c.send(outItem{raw: preamble()})
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
	id.ch.post(ev)
	id.mu.Unlock()
	child.readLoop(c, buf)
}

func pad(b []byte, n int) []byte {
	out := make([]byte, max(n, len(b)))
	copy(out, b)
	return out
}

// isLocal says whether a is an address of this host.
func isLocal(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsUnspecified() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, x := range addrs {
		if pn, ok := x.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(pn.IP); ok && ip.Unmap() == a {
				return true
			}
		}
	}
	return false
}

// Device is id->verbs.
func (id *cmID) Device() verbs.Device {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.dev == nil {
		return nil
	}
	return id.dev
}

func (id *cmID) PortNum() uint8 {
	if id.Device() == nil {
		return 0
	}
	return 1
}

// CreateQP is rdma_create_qp.
func (id *cmID) CreateQP(p verbs.PD, attr verbs.QPInitAttr) (verbs.QP, error) {
	const fn = "rdma_create_qp"
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.dev == nil {
		return nil, verbs.Errorf(fn, errEINVAL, "id has no device yet (resolve the address or wait for a connect request)")
	}
	if id.qp != nil {
		return nil, verbs.Errorf(fn, errEINVAL, "id already has QP 0x%x", id.qp.num)
	}
	pp, ok := p.(*pd)
	if !ok || pp.dev != id.dev {
		return nil, verbs.Errorf(fn, errEINVAL, "PD is not a PD of sim0")
	}
	pp.mu.Lock()
	dead := pp.dead
	pp.mu.Unlock()
	if dead {
		return nil, verbs.Errorf(fn, errEINVAL, "PD is deallocated")
	}
	if err := checkPortSpaceType(id.ps, attr.Type); err != nil {
		return nil, err
	}
	q, err := newQP(id.dev, pp, attr, fn, false)
	if err != nil {
		return nil, err
	}
	// rdma_create_qp's INIT: before rdma_connect there is no IB CM id yet
	// and rdma_cm sets qp_access_flags 0 (measured on rxe,
	// TestQPAccessAtInit); on a connection request's id, ib_cm's
	// cm_init_qp_init_attr grants by the REQ's initiator depth.
	if id.state == stConnectReq {
		q.access = cmAccess(id.respRes)
	}
	id.qp = q
	return q, nil
}

func (id *cmID) QP() verbs.QP {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.qp == nil {
		return nil
	}
	return id.qp
}

// DestroyQP is rdma_destroy_qp.
func (id *cmID) DestroyQP() error {
	id.mu.Lock()
	q := id.qp
	id.qp = nil
	id.mu.Unlock()
	if q == nil {
		return verbs.Errorf("rdma_destroy_qp", errEINVAL, "id has no QP")
	}
	q.destroy()
	return nil
}

func (id *cmID) LocalAddr() netip.AddrPort {
	id.mu.Lock()
	defer id.mu.Unlock()
	return id.local
}

func (id *cmID) PeerAddr() netip.AddrPort {
	id.mu.Lock()
	defer id.mu.Unlock()
	return id.peer
}

// Destroy is rdma_destroy_id. Like the kernel it sends a DREQ for a live
// connection; it also destroys a QP left on the id so nothing leaks.
func (id *cmID) Destroy() error {
	id.mu.Lock()
	if id.destroyed {
		id.mu.Unlock()
		return verbs.Errorf("rdma_destroy_id", errEINVAL, "id already destroyed")
	}
	id.destroyed = true
	if id.cancel != nil {
		id.cancel()
	}
	id.p.stopTimer(id.discTimer)
	id.discTimer = nil
	id.p.stopTimer(id.rtuTimer)
	id.rtuTimer = nil
	if id.ln != nil {
		id.ln.Close()
	}
	var pending []net.Conn
	for nc := range id.pending {
		pending = append(pending, nc)
	}
	if c := id.conn; c != nil {
		switch {
		case id.ps == verbs.PSUDP:
			// A SIDR exchange leaves nothing to tear down: the peer hears
			// nothing (ud_cm.go).
		case id.state == stEstablished, id.state == stAccepted:
			c.sendCM(&cmMsg{Type: cmDREQ})
		case id.state == stDisconnected:
			if id.passive && !id.disconnectCalled {
				c.sendCM(&cmMsg{Type: cmDREP}) // the peer's DREQ, never answered
			}
		case id.state == stConnectReq, id.state == stRepRcvd:
			// ib_cm rejects a request (or a reply) whose id is destroyed
			// unanswered.
			c.sendCM(&cmMsg{Type: cmREJ, Reason: rejConsumerDefined})
		}
		c.closeAfterFlush()
	}
	q := id.qp
	id.qp = nil
	state := id.state
	id.mu.Unlock()
	for _, nc := range pending {
		nc.Close()
	}
	if q != nil {
		q.destroy()
	}
	id.p.dev.dropPeer(id)
	ch := id.ch
	ch.mu.Lock()
	delete(ch.ids, id)
	var unseen []*cmID
	if state == stListen {
		unseen = ch.unseenChildren(id)
	}
	ch.mu.Unlock()
	for _, c := range unseen {
		c.Destroy()
	}
	id.p.count(func(r *verbs.ResourceCount) { r.IDs-- })
	return nil
}
