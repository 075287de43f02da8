package sim

// The active side of the CM: address and route resolution, the REQ and the wait for the peer's answer.

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"syscall"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

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
	case id.p.dev.onOtherNetdev(d):
		status = -int(syscall.ENODEV)
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
// checkConnParam is librdmacm's ucma_valid_param: responder_resources
// and initiator_depth above the device's max_qp_rd_atom /
// max_qp_init_rd_atom are EINVAL, except 0xff (RDMA_MAX_RESP_RES,
// RDMA_MAX_INIT_DEPTH), which ucma_copy_conn_param_to_kern turns into
// the device's maximum.
func checkConnParam(fn string, p *verbs.ConnParam, most uint8) error {
	for _, v := range []*uint8{&p.ResponderResources, &p.InitiatorDepth} {
		switch {
		case *v == 0xff:
			*v = most
		case *v > most:
			return verbs.Errorf(fn, errEINVAL, "responder_resources %d / initiator_depth %d: the device allows %d", p.ResponderResources, p.InitiatorDepth, most)
		}
	}
	return nil
}

func cmFromParam(typ uint8, p verbs.ConnParam) cmMsg {
	return cmMsg{Type: typ, ResponderResources: p.ResponderResources, InitiatorDepth: p.InitiatorDepth,
		RetryCount: min(p.RetryCount, 7), RNRRetryCount: min(p.RNRRetryCount, 7), FlowControl: p.FlowControl,
		PrivateData: append([]byte(nil), p.PrivateData...)}
}

// Connect is rdma_connect. The outcome arrives as an event.
func (id *cmID) Connect(p verbs.ConnParam) error {
	const fn = "rdma_connect"
	if id.ps == verbs.PSUDP {
		return id.udConnect(p)
	}
	if len(p.PrivateData) > verbs.MaxConnectPrivateData {
		return verbs.Errorf(fn, errEINVAL, "%d bytes of private data; at most %d fit in an IB CM REQ", len(p.PrivateData), verbs.MaxConnectPrivateData)
	}
	if err := checkConnParam(fn, &p, id.p.dev.limits().MaxQPRdAtom); err != nil {
		return err
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
	fail := func(t verbs.CMEventType, status int) { id.connectFailed(ctx, t, status) }
	c, br, ok := id.dial(ctx, dst, req, fail)
	if !ok {
		return
	}
	buf := make([]byte, frameBuffer)
	m, err := awaitReply(c, br, buf, id.p.opts.CMTimeout, id.p.opts.HandshakeTimeout)
	if err != nil {
		t := verbs.EventConnectError
		if err.timeout {
			t = verbs.EventUnreachable // the peer's CM never answered
		}
		fail(t, err.status)
		return
	}
	if id.onReply(ctx, c, &m, p) {
		id.readLoop(c, buf)
	}
}

// connectFailed ends a connect with the event rdma_cm would post.
func (id *cmID) connectFailed(ctx context.Context, t verbs.CMEventType, status int) {
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

// dial opens the connection to the passive side and sends the REQ.
func (id *cmID) dial(ctx context.Context, dst netip.AddrPort, req cmMsg, fail func(verbs.CMEventType, int)) (*conn, *bufio.Reader, bool) {
	d := net.Dialer{Timeout: id.p.opts.CMTimeout}
	nc, err := d.DialContext(ctx, "tcp", dst.String())
	if err != nil {
		switch {
		case ctx.Err() != nil:
		case errors.Is(err, syscall.ECONNREFUSED):
			// Nobody listens on that port: the IB CM answers a REQ for an
			// unknown service ID with REJ reason 8.
			fail(noListenerEvent(id.ps))
		default:
			fail(verbs.EventUnreachable, -int(syscall.ETIMEDOUT))
		}
		return nil, nil, false
	}
	in := newConnIn(nc)
	c := newConn(id.p, nc, in)
	id.mu.Lock()
	if id.destroyed || ctx.Err() != nil {
		id.mu.Unlock()
		c.abort()
		return nil, nil, false
	}
	id.conn = c
	id.local = addrPortOf(nc.LocalAddr())
	id.mu.Unlock()
	c.send(outItem{raw: append(preamble(), encodeCM(&req)...)})
	return c, in.br, true
}

// replyError is why no REP or REJ came: the CM event status to post, and
// whether the peer's CM never answered at all (UNREACHABLE, not
// CONNECT_ERROR).
type replyError struct {
	status  int
	timeout bool
}

// awaitReply reads the peer's answer to the REQ: a REP or a REJ.
func awaitReply(c *conn, br *bufio.Reader, buf []byte, timeout, handshake time.Duration) (cmMsg, *replyError) {
	// The peer's CM must answer within the CM timeout: its preamble plays
	// the part of the IB CM's MRA ("REQ received, the application is
	// deciding"). After it, wait as long as the MRA allows the
	// application: the handshake timeout.
	c.nc.SetReadDeadline(time.Now().Add(timeout))
	if err := readPreamble(br); err != nil {
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
			return cmMsg{}, &replyError{status: -int(syscall.ETIMEDOUT), timeout: true}
		case errors.Is(err, errWire):
			return cmMsg{}, &replyError{status: -int(syscall.EPROTO)}
		}
		return cmMsg{}, &replyError{status: -int(syscall.ECONNRESET)}
	}
	c.nc.SetReadDeadline(time.Now().Add(handshake))
	kind, body, err := readFrame(br, buf)
	c.nc.SetReadDeadline(time.Time{})
	var m cmMsg
	if err == nil {
		if kind != kindCM {
			err = errWire
		} else {
			m, err = decodeCM(body)
		}
	}
	if err == nil && m.Type != cmREP && m.Type != cmREJ && m.Type != cmSIDRRep {
		err = errWire
	}
	switch {
	case err == nil:
		c.tap.cm(&m, false)
		return m, nil
	case errors.Is(err, errWire):
		return m, &replyError{status: -int(syscall.EPROTO)}
	case isTimeout(err):
		// The MRA's grace ran out: the IB CM's REQ retries are spent.
		return m, &replyError{status: -int(syscall.ETIMEDOUT), timeout: true}
	}
	return m, &replyError{status: -int(syscall.ECONNRESET)}
}

// onReply acts on the REP or REJ and posts the event; it reports whether
// the connection goes on (then the caller becomes its reader).
func (id *cmID) onReply(ctx context.Context, c *conn, m *cmMsg, p verbs.ConnParam) bool {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || ctx.Err() != nil {
		return false
	}
	if id.ps == verbs.PSUDP {
		return id.udOnReply(c, m)
	}
	if m.Type == cmREJ {
		id.state = stClosed
		c.abort()
		id.conn = nil
		ev := id.event(verbs.EventRejected, int(m.Reason))
		ev.PrivateData = pad(m.PrivateData, rejPrivateDataSize)
		id.ch.post(ev)
		return false
	}
	id.peerKnown, id.peerQPN, id.peerPSN = true, m.QPN, m.PSN
	// ib_cm on REP: the peer's answer sets what this side may use.
	id.respRes, id.initDepth, id.rnrRetry = m.InitiatorDepth, m.ResponderResources, m.RNRRetryCount
	id.p.dev.setPeer(m.QPN, id)
	evType := verbs.EventEstablished
	var onGet func() bool
	if id.qp != nil {
		// librdmacm does this when the application fetches the event
		// (ucma_process_conn_resp): QP to RTR and RTS, then the RTU.
		// Until then the peer waits for the RTU — measured on rxe: a
		// client that waits 120 s before rdma_get_cm_event leaves the
		// server without ESTABLISHED for those 120 s.
		id.state = stRepRcvd
		rep := *m
		onGet = func() bool { return id.establishOnGet(c, &rep, p) }
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
	id.ch.postWith(ev, onGet)
	return true
}

// establishOnGet finishes the connection when the application fetches
// ESTABLISHED: RTR, RTS, RTU. It reports false when the connection ended
// first (its own event follows in the queue).
func (id *cmID) establishOnGet(c *conn, m *cmMsg, p verbs.ConnParam) bool {
	id.mu.Lock()
	defer id.mu.Unlock()
	q := id.qp
	if id.destroyed || id.state != stRepRcvd || id.conn != c || q == nil {
		return false
	}
	q.toRTR(c, m.QPN, m.PSN, p.ResponderResources, m.InitiatorDepth)
	// librdmacm's CONNECT_RESPONSE handling keeps ib_cm's max_rd_atomic,
	// the REP's responder resources (measured on rxe: initiator_depth 0
	// in rdma_connect still gives 1 here when the server accepted with
	// responder_resources 1).
	q.toRTS(p.RetryCount, p.RNRRetryCount, m.ResponderResources)
	c.sendCM(&cmMsg{Type: cmRTU})
	id.state = stEstablished
	return true
}

// isTimeout says err is a read deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
