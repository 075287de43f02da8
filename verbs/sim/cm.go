package sim

import (
	"bufio"
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
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
	q         []verbs.CMEvent
	sig       chan struct{} // closed and replaced on every post
	destroyed bool
	ids       map[*cmID]struct{}
}

// CreateEventChannel is rdma_create_event_channel.
func (p *Provider) CreateEventChannel() (verbs.EventChannel, error) {
	p.count(func(r *verbs.ResourceCount) { r.EventChannels++ })
	return &eventChannel{p: p, sig: make(chan struct{}), ids: map[*cmID]struct{}{}}, nil
}

func (ch *eventChannel) FD() int { return -1 }

func (ch *eventChannel) post(ev verbs.CMEvent) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.destroyed {
		return
	}
	ch.q = append(ch.q, ev)
	close(ch.sig)
	ch.sig = make(chan struct{})
}

// GetEvent is rdma_get_cm_event + rdma_ack_cm_event.
func (ch *eventChannel) GetEvent(ctx context.Context) (verbs.CMEvent, error) {
	for {
		ch.mu.Lock()
		if ch.destroyed {
			ch.mu.Unlock()
			return verbs.CMEvent{}, verbs.Errorf("rdma_get_cm_event", errEINVAL, "event channel destroyed")
		}
		for len(ch.q) > 0 {
			ev := ch.q[0]
			ch.q = ch.q[1:]
			if id, ok := ev.ID.(*cmID); ok && id.isDestroyed() {
				continue // the id went away before anyone saw the event
			}
			ch.mu.Unlock()
			return ev, nil
		}
		sig := ch.sig
		ch.mu.Unlock()
		select {
		case <-ctx.Done():
			return verbs.CMEvent{}, ctx.Err()
		case <-sig:
		}
	}
}

// Destroy is rdma_destroy_event_channel. rdma_cm requires every id on the
// channel to be destroyed first; we refuse with EBUSY instead of leaking.
// Child ids whose CONNECT_REQUEST was never fetched are destroyed here:
// nobody could have seen them.
func (ch *eventChannel) Destroy() error {
	ch.mu.Lock()
	if ch.destroyed {
		ch.mu.Unlock()
		return verbs.Errorf("rdma_destroy_event_channel", errEINVAL, "already destroyed")
	}
	unseen := ch.unseenChildren(nil)
	n := len(ch.ids) - len(unseen)
	ch.mu.Unlock()
	if n > 0 {
		return verbs.Errorf("rdma_destroy_event_channel", errEBUSY, "%d rdma_cm ids still use this channel", n)
	}
	for _, c := range unseen {
		c.Destroy()
	}
	ch.mu.Lock()
	ch.destroyed = true
	ch.q = nil
	ch.mu.Unlock()
	ch.p.count(func(r *verbs.ResourceCount) { r.EventChannels-- })
	return nil
}

// unseenChildren lists child ids in queued CONNECT_REQUEST events (of
// listener l, or of any listener when l is nil). ch.mu must be held.
func (ch *eventChannel) unseenChildren(l *cmID) []*cmID {
	var out []*cmID
	for _, ev := range ch.q {
		if ev.Type != verbs.EventConnectRequest {
			continue
		}
		if lid, _ := ev.ListenID.(*cmID); l == nil || lid == l {
			if c, ok := ev.ID.(*cmID); ok {
				out = append(out, c)
			}
		}
	}
	return out
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
	passive          bool // disconnected by the peer's DREQ
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

// CreateID is rdma_create_id.
func (ch *eventChannel) CreateID(ps verbs.PortSpace) (verbs.CMID, error) {
	if ps != verbs.PSTCP {
		return nil, verbs.Errorf("rdma_create_id", syscall.EPROTONOSUPPORT, "%s: the simulated NIC does RDMA_PS_TCP only", ps)
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.destroyed {
		return nil, verbs.Errorf("rdma_create_id", errEINVAL, "event channel destroyed")
	}
	id := &cmID{p: ch.p, ch: ch, ps: ps, seqNum: uint32(rand.N(1 << 24))}
	ch.ids[id] = struct{}{}
	ch.p.count(func(r *verbs.ResourceCount) { r.IDs++ })
	return id, nil
}

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

func (id *cmID) acceptLoop(ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return // listener closed by Destroy
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
	if err != nil || m.Type != cmREQ {
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

// ResolveAddr is rdma_resolve_addr. The result arrives as an event.
func (id *cmID) ResolveAddr(src, dst netip.AddrPort, timeout time.Duration) error {
	const fn = "rdma_resolve_addr"
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || (id.state != stIdle && id.state != stBound) {
		return verbs.Errorf(fn, errEINVAL, "id is not idle")
	}
	if !dst.Addr().IsValid() {
		return verbs.Errorf(fn, errEINVAL, "no destination address")
	}
	d := dst.Addr().Unmap()
	status := 0
	switch {
	case d.IsMulticast():
		status = -int(syscall.EINVAL) // RC cannot connect to a group
	case d.IsUnspecified():
		status = -int(syscall.EADDRNOTAVAIL)
	case src.Addr().IsValid() && !isLocal(src.Addr()):
		status = -int(syscall.EADDRNOTAVAIL)
	}
	if status != 0 {
		id.ch.post(id.event(verbs.EventAddrError, status))
		return nil
	}
	local := src.Addr().Unmap()
	if id.state == stBound && !local.IsValid() {
		local = id.local.Addr()
	}
	if !local.IsValid() || local.IsUnspecified() {
		local = sourceFor(d)
	}
	if id.state != stBound {
		id.local = netip.AddrPortFrom(local, src.Port())
	}
	id.peer = netip.AddrPortFrom(d, dst.Port())
	id.dev = id.p.dev
	id.state = stAddrResolved
	id.ch.post(id.event(verbs.EventAddrResolved, 0))
	return nil
}

// sourceFor picks the local address the kernel would route from, by
// "connecting" a UDP socket (which sends nothing).
func sourceFor(dst netip.Addr) netip.Addr {
	if dst.IsLoopback() {
		return dst
	}
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(dst, 9)))
	if err != nil {
		return netip.IPv4Unspecified()
	}
	defer c.Close()
	return addrPortOf(&net.TCPAddr{IP: c.LocalAddr().(*net.UDPAddr).IP}).Addr()
}

// ResolveRoute is rdma_resolve_route.
func (id *cmID) ResolveRoute(timeout time.Duration) error {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.state != stAddrResolved {
		return verbs.Errorf("rdma_resolve_route", errEINVAL, "address not resolved")
	}
	id.state = stRouteResolved
	id.ch.post(id.event(verbs.EventRouteResolved, 0))
	return nil
}

// cmFromParam is the REQ or REP that carries rdma_conn_param p (the CM
// fields are 3 bits wide: counts above 7 mean 7).
func cmFromParam(typ uint8, p verbs.ConnParam) cmMsg {
	return cmMsg{Type: typ, ResponderResources: p.ResponderResources, InitiatorDepth: p.InitiatorDepth,
		RetryCount: min(p.RetryCount, 7), RNRRetryCount: min(p.RNRRetryCount, 7), FlowControl: p.FlowControl,
		PrivateData: append([]byte(nil), p.PrivateData...)}
}

// Connect is rdma_connect. The outcome arrives as an event.
func (id *cmID) Connect(p verbs.ConnParam) error {
	const fn = "rdma_connect"
	if len(p.PrivateData) > verbs.MaxConnectPrivateData {
		return verbs.Errorf(fn, errEINVAL, "%d bytes of private data; at most %d fit in an IB CM REQ", len(p.PrivateData), verbs.MaxConnectPrivateData)
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.state != stRouteResolved {
		return verbs.Errorf(fn, errEINVAL, "route not resolved")
	}
	req := cmFromParam(cmREQ, p)
	if id.qp != nil {
		req.QPN, req.PSN = id.qp.num, id.qp.startPSN()
	} else {
		// No QP on the id: rdma_conn_param.qp_num names the application's
		// QP; the starting PSN is the CM's own (rdma_init_qp_attr(RTS)
		// hands it back as sq_psn).
		req.QPN, req.PSN = p.QPNum&0xFFFFFF, id.seqNum
	}
	id.localPSN, id.psnSent = req.PSN, true
	id.respRes, id.initDepth, id.retryCnt, id.rnrRetry = req.ResponderResources, req.InitiatorDepth, req.RetryCount, req.RNRRetryCount
	ctx, cancel := context.WithCancel(context.Background())
	id.cancel = cancel
	id.state = stConnecting
	dst := id.peer
	id.p.goStart(func() { id.connectLoop(ctx, dst, req, p) })
	return nil
}

// connectLoop dials, sends the REQ and waits for REP or REJ; on REP it
// finishes the connection and becomes the connection's reader.
func (id *cmID) connectLoop(ctx context.Context, dst netip.AddrPort, req cmMsg, p verbs.ConnParam) {
	timeout := id.p.opts.CMTimeout
	fail := func(t verbs.CMEventType, status int) {
		id.mu.Lock()
		defer id.mu.Unlock()
		if id.destroyed || ctx.Err() != nil {
			return
		}
		id.state = stClosed
		if id.conn != nil {
			id.conn.abort()
			id.conn = nil
		}
		id.ch.post(id.event(t, status))
	}
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", dst.String())
	if err != nil {
		switch {
		case ctx.Err() != nil:
		case errors.Is(err, syscall.ECONNREFUSED):
			// Nobody listens on that port: the IB CM answers a REQ for an
			// unknown service ID with REJ reason 8.
			fail(verbs.EventRejected, rejInvalidServiceID)
		default:
			fail(verbs.EventUnreachable, -int(syscall.ETIMEDOUT))
		}
		return
	}
	br := bufio.NewReaderSize(nc, 256<<10)
	c := newConn(id.p, nc, br)
	id.mu.Lock()
	if id.destroyed || ctx.Err() != nil {
		id.mu.Unlock()
		c.abort()
		return
	}
	id.conn = c
	id.local = addrPortOf(nc.LocalAddr())
	id.mu.Unlock()
	c.send(outItem{raw: append(preamble(), encodeCM(&req)...)})

	// The peer's CM must answer within the CM timeout: its preamble plays
	// the part of the IB CM's MRA ("REQ received, the application is
	// deciding"). After it, wait as long as the application takes.
	nc.SetReadDeadline(time.Now().Add(timeout))
	if err := readPreamble(br); err != nil {
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
			fail(verbs.EventUnreachable, -int(syscall.ETIMEDOUT))
		case errors.Is(err, errWire):
			fail(verbs.EventConnectError, -int(syscall.EPROTO))
		default:
			fail(verbs.EventConnectError, -int(syscall.ECONNRESET))
		}
		return
	}
	nc.SetReadDeadline(time.Time{})
	buf := make([]byte, maxFrameBody)
	kind, body, err := readFrame(br, buf)
	var m cmMsg
	if err == nil {
		if kind != kindCM {
			err = errWire
		} else {
			m, err = decodeCM(body)
		}
	}
	if err == nil && m.Type != cmREP && m.Type != cmREJ {
		err = errWire
	}
	if err == nil {
		c.tap.cm(&m, false)
	}
	if err != nil {
		if errors.Is(err, errWire) {
			fail(verbs.EventConnectError, -int(syscall.EPROTO))
		} else {
			fail(verbs.EventConnectError, -int(syscall.ECONNRESET))
		}
		return
	}
	id.mu.Lock()
	if id.destroyed || ctx.Err() != nil {
		id.mu.Unlock()
		return
	}
	if m.Type == cmREJ {
		id.state = stClosed
		c.abort()
		id.conn = nil
		ev := id.event(verbs.EventRejected, int(m.Reason))
		ev.PrivateData = pad(m.PrivateData, rejPrivateDataSize)
		id.ch.post(ev)
		id.mu.Unlock()
		return
	}
	id.peerKnown, id.peerQPN, id.peerPSN = true, m.QPN, m.PSN
	// ib_cm on REP: the peer's answer sets what this side may use.
	id.respRes, id.initDepth, id.rnrRetry = m.InitiatorDepth, m.ResponderResources, m.RNRRetryCount
	id.p.dev.setPeer(m.QPN, id)
	evType := verbs.EventEstablished
	if q := id.qp; q != nil {
		q.toRTR(c, m.QPN, m.PSN, p.ResponderResources)
		q.toRTS(p.RetryCount, p.RNRRetryCount, p.InitiatorDepth)
		c.sendCM(&cmMsg{Type: cmRTU})
		id.state = stEstablished
	} else {
		// librdmacm hands CONNECT_RESPONSE to an id without a QP: the
		// application brings its QP to RTR and RTS and then calls
		// rdma_establish, which sends the RTU.
		evType = verbs.EventConnectResponse
		id.state = stRepRcvd
	}
	ev := id.event(evType, 0)
	ev.PrivateData = pad(m.PrivateData, repPrivateDataSize)
	ev.ResponderResources, ev.InitiatorDepth = m.ResponderResources, m.InitiatorDepth
	ev.RNRRetryCount = m.RNRRetryCount
	ev.QPNum = m.QPN
	id.ch.post(ev)
	id.mu.Unlock()
	id.readLoop(c, buf)
}

// readLoop reads frames until the connection ends.
func (id *cmID) readLoop(c *conn, buf []byte) {
	defer c.readerExited()
	for {
		kind, body, err := readFrame(c.br, buf)
		if err == nil {
			c.setBatching(true)
			switch kind {
			case kindCM:
				var m cmMsg
				if m, err = decodeCM(body); err == nil {
					c.tap.cm(&m, false)
					id.onCM(c, &m)
				}
			case kindPacket:
				var pk packet
				if pk, err = decodePacket(body); err == nil {
					id.p.dev.trace(&pk, false)
					c.tap.packet(&pk, pk.Payload, false)
					// The QP that RTR bound to this connection takes it:
					// the id's own (rdma_create_qp) or the application's.
					if q := id.p.dev.qpByNum(pk.DestQP); q != nil {
						q.receive(c, &pk)
					}
				}
			}
			if !frameReady(c.br) {
				c.setBatching(false) // about to block: send what the burst queued
			}
		}
		if err != nil {
			c.setBatching(false)
			if !c.isLocalClosed() {
				id.p.log.Debug("sim: connection lost", "peer", id.peer, "err", err)
				c.peerClosed()
				id.connLost(c)
			}
			// A QP bound to this connection has no path to its peer any
			// more: what a real RNIC finds out from its retries.
			id.p.dev.peerLeft(c)
			return
		}
	}
}

func (id *cmID) onCM(c *conn, m *cmMsg) {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.conn != c {
		return
	}
	switch m.Type {
	case cmRTU:
		if id.state == stAccepted {
			id.state = stEstablished
			id.ch.post(id.event(verbs.EventEstablished, 0))
		}
	case cmDREQ:
		switch id.state {
		case stEstablished, stAccepted:
			// Like rdma_cm: the DREQ only raises DISCONNECTED. The QP is the
			// application's; it stays as it is until this side calls
			// rdma_disconnect, which moves it to ERR and answers with the
			// DREP (until then the peer waits for its DREQ to time out).
			id.state = stDisconnected
			id.passive = true
			id.ch.post(id.event(verbs.EventDisconnected, 0))
			// The peer's QP is in ERR (or about to be destroyed) and drops
			// whatever this side still sends: only the ACK timer can tell.
			id.p.dev.peerLeft(c)
		case stDisconnecting: // both sides disconnected at once
			c.sendCM(&cmMsg{Type: cmDREP})
		}
	case cmDREP:
		if id.state == stDisconnecting {
			id.p.stopTimer(id.discTimer)
			id.discTimer = nil
			id.state = stDisconnected
			id.ch.post(id.event(verbs.EventDisconnected, 0))
		}
	}
}

// connLost handles the TCP connection breaking (the peer process died).
func (id *cmID) connLost(c *conn) {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.conn != c {
		return
	}
	switch id.state {
	case stEstablished, stDisconnecting:
		id.p.stopTimer(id.discTimer)
		id.discTimer = nil
		id.state = stDisconnected
		id.ch.post(id.event(verbs.EventDisconnected, 0))
	case stAccepted, stRepRcvd:
		if id.qp != nil {
			id.qp.toErr()
		}
		id.state = stClosed
		id.ch.post(id.event(verbs.EventConnectError, -int(syscall.ECONNRESET)))
	case stConnectReq:
		id.connDead = true
	}
}

// Accept is rdma_accept: QP to RTR and RTS, then REP.
func (id *cmID) Accept(p verbs.ConnParam) error {
	const fn = "rdma_accept"
	if len(p.PrivateData) > verbs.MaxAcceptPrivateData {
		return verbs.Errorf(fn, errEINVAL, "%d bytes of private data; at most %d fit in an IB CM REP", len(p.PrivateData), verbs.MaxAcceptPrivateData)
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.state != stConnectReq {
		return verbs.Errorf(fn, errEINVAL, "no connection request to accept on this id")
	}
	rep := cmFromParam(cmREP, p)
	if q := id.qp; q != nil {
		q.toRTR(id.conn, id.req.QPN, id.req.PSN, p.ResponderResources)
		// ib_cm takes the RNR retry count from our own accept parameters.
		q.toRTS(p.RetryCount, p.RNRRetryCount, p.InitiatorDepth)
		rep.QPN, rep.PSN = q.num, q.startPSN()
	} else {
		// The application's QP (already in RTR/RTS, one hopes): the REP
		// carries conn_param.qp_num and the PSN rdma_init_qp_attr(RTS)
		// gave out as sq_psn.
		rep.QPN, rep.PSN = p.QPNum&0xFFFFFF, id.myPSN()
	}
	id.localPSN, id.psnSent = rep.PSN, true
	id.respRes, id.initDepth, id.rnrRetry = rep.ResponderResources, rep.InitiatorDepth, rep.RNRRetryCount
	id.state = stAccepted
	id.conn.sendCM(&rep)
	if id.connDead {
		if id.qp != nil {
			id.qp.toErr()
		}
		id.state = stClosed
		id.ch.post(id.event(verbs.EventConnectError, -int(syscall.ECONNRESET)))
	}
	return nil
}

// Reject is rdma_reject.
func (id *cmID) Reject(privateData []byte) error {
	const fn = "rdma_reject"
	if len(privateData) > verbs.MaxRejectPrivateData {
		return verbs.Errorf(fn, errEINVAL, "%d bytes of private data; at most %d fit in an IB CM REJ", len(privateData), verbs.MaxRejectPrivateData)
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.state != stConnectReq {
		return verbs.Errorf(fn, errEINVAL, "no connection request to reject on this id")
	}
	id.conn.sendCM(&cmMsg{Type: cmREJ, Reason: rejConsumerDefined, PrivateData: append([]byte(nil), privateData...)})
	id.conn.closeAfterFlush()
	id.state = stClosed
	return nil
}

// Disconnect is rdma_disconnect: QP to ERR (flushing), then DREQ.
func (id *cmID) Disconnect() error {
	const fn = "rdma_disconnect"
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed {
		return verbs.Errorf(fn, errEINVAL, "id destroyed")
	}
	switch id.state {
	case stEstablished, stAccepted:
	case stDisconnected:
		// Answering the peer's DREQ is fine: QP to ERR, then the DREP.
		// A second disconnect from this side is not.
		if id.passive && !id.disconnectCalled {
			id.disconnectCalled = true
			if id.qp != nil {
				id.qp.toErr()
			}
			if id.conn != nil {
				id.conn.sendCM(&cmMsg{Type: cmDREP})
			}
			return nil
		}
		return verbs.Errorf(fn, errEINVAL, "already disconnected")
	default:
		return verbs.Errorf(fn, errEINVAL, "id is not connected")
	}
	id.disconnectCalled = true
	if id.qp != nil {
		id.qp.toErr()
	}
	id.conn.sendCM(&cmMsg{Type: cmDREQ})
	id.state = stDisconnecting
	id.discTimer = id.p.afterFunc(id.p.opts.DisconnectTimeout, func() {
		id.mu.Lock()
		defer id.mu.Unlock()
		if id.state == stDisconnecting && !id.destroyed {
			id.discTimer = nil
			id.state = stDisconnected
			id.ch.post(id.event(verbs.EventDisconnected, 0))
		}
	})
	return nil
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
	q, err := newQP(id.dev, pp, attr, fn, false)
	if err != nil {
		return nil, err
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
	if id.ln != nil {
		id.ln.Close()
	}
	var pending []net.Conn
	for nc := range id.pending {
		pending = append(pending, nc)
	}
	if c := id.conn; c != nil {
		switch id.state {
		case stEstablished, stAccepted:
			c.sendCM(&cmMsg{Type: cmDREQ})
		case stDisconnected:
			if id.passive && !id.disconnectCalled {
				c.sendCM(&cmMsg{Type: cmDREP}) // the peer's DREQ, never answered
			}
		case stConnectReq, stRepRcvd:
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
