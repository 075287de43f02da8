package sim

import (
	"context"
	"errors"
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

// cmID is rdma_cm_id. Every field below mu, its parts' fields included,
// is guarded by it.
type cmID struct {
	p  *Provider
	ch *eventChannel
	ps verbs.PortSpace

	mu        sync.Mutex
	state     idState
	destroyed bool
	dev       *device
	local     netip.AddrPort
	peer      netip.AddrPort
	conn      *conn
	qp        *qp
	listener  *cmID
	req       cmMsg // child: the REQ
	cmListen
	cmTimers
	cmDisconnect
	cmParams
}

// cmListen is a listening id's own state.
type cmListen struct {
	ln      net.Listener
	pending map[net.Conn]struct{} // listener: connections still in handshake
}

// cmTimers are what bounds an exchange in flight: the active side's
// resolve and connect (cancel), the wait for a DREP (discTimer) and, on
// the passive side, for the RTU.
type cmTimers struct {
	cancel    context.CancelFunc
	discTimer *time.Timer
	rtuTimer  *time.Timer // passive side: REP sent, the RTU not yet in
}

// stop ends them all, as rdma_destroy_id does.
func (t *cmTimers) stop(p *Provider) {
	if t.cancel != nil {
		t.cancel()
	}
	p.stopTimer(t.discTimer)
	t.discTimer = nil
	p.stopTimer(t.rtuTimer)
	t.rtuTimer = nil
}

// cmDisconnect is how the connection ended, or is ending.
type cmDisconnect struct {
	connDead bool
	// drepOwed: the peer's DREQ arrived and this side has not answered it
	// (ib_cm's IB_CM_DREQ_RCVD). The DREP goes out at rdma_disconnect or
	// rdma_destroy_id; the peer's DREP arriving first clears it (ib_cm
	// enters timewait and sends none: cm_drep_handler).
	drepOwed bool
}

// cmParams is what the CM knows for rdma_init_qp_attr (ib_cm's
// cm_id_priv).
type cmParams struct {
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
	id.cmTimers.stop(id.p)
	pending := id.cmListen.close()
	id.farewellLocked()
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
	id.leaveChannel(state)
	id.p.count(func(r *verbs.ResourceCount) { r.IDs-- })
	return nil
}

// close closes the listening socket and returns the connections still
// in handshake, for the caller to close once it has let go of id.mu.
func (l *cmListen) close() []net.Conn {
	if l.ln != nil {
		l.ln.Close()
	}
	var pending []net.Conn
	for nc := range l.pending {
		pending = append(pending, nc)
	}
	return pending
}

// farewellLocked sends what the kernel's CM sends for an id destroyed
// in its state, then lets the connection close once that is written.
// id.mu is held.
func (id *cmID) farewellLocked() {
	c := id.conn
	if c == nil {
		return
	}
	switch {
	case id.ps == verbs.PSUDP:
		// A SIDR exchange leaves nothing to tear down: the peer hears
		// nothing (ud_cm.go).
	case id.state == stEstablished, id.state == stAccepted:
		c.sendCM(&cmMsg{Type: cmDREQ})
	case id.state == stDisconnected:
		if id.drepOwed {
			// The peer's DREQ, never answered (cm_destroy_id in
			// IB_CM_DREQ_RCVD sends the DREP).
			c.sendCM(&cmMsg{Type: cmDREP})
		}
	case id.state == stConnectReq, id.state == stRepRcvd:
		// ib_cm rejects a request (or a reply) whose id is destroyed
		// unanswered.
		c.sendCM(&cmMsg{Type: cmREJ, Reason: rejConsumerDefined})
	}
	c.closeAfterFlush()
}

// leaveChannel takes the id off its event channel; a listener also
// destroys the children whose CONNECT_REQUEST nobody fetched.
func (id *cmID) leaveChannel(state idState) {
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
}
