package steps

import (
	"net/netip"
	"sync"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The parts of a Session. Each owns one concern; Session.mu guards all of
// them but demoSide, which has its own lock (see Session). The ones that hold verbs objects release them, in
// the order teardownC calls them.

// progress is how far the tour has run.
type progress struct {
	next     int
	running  bool
	done     bool
	failed   bool
	closed   bool
	lastErr  string
	outcomes []*Outcome
	states   []RunState
	result   *Result // what the tour delivered (nil: nothing yet)
}

// resources are the verbs objects of one side, children first.
type resources struct {
	ec       verbs.EventChannel
	listener verbs.CMID
	id       verbs.CMID
	dev      verbs.Device
	// iwarp is dev's transport, read once when it is bound (useDevice):
	// Info() queries the device, and the timeline asks on every entry.
	iwarp    bool
	pd       verbs.PD
	cc       verbs.CompChannel // --completion event: the CQ's channel
	cq       verbs.CQ
	qp       verbs.QP
	manualQP bool // qp came from ibv_create_qp: teardown uses ibv_destroy_qp
	mrData   verbs.MR
	mrDoor   verbs.MR
	mrRecv   verbs.MR
	mrSend   verbs.MR
	// sharedPD says pd is a workshop Room's (the atomic room's shared
	// PD): teardown leaves it.
	sharedPD bool
	// srq is a workshop room's shared receive queue (host_srq.go): the
	// QP takes its RECVs from it. The room owns it.
	srq *SharedRecv
}

// release frees every object still held, children before parents: the
// QP, the MRs (each with its buffer), the CQ, the PD (unless shared),
// the ids, the event channel.
func (r *resources) release(log *teardownLog) {
	if r.qp != nil && r.manualQP {
		log.free(destroyQPCall(true), r.qp.Destroy)
		r.qp = nil
	}
	if r.id != nil && r.qp != nil {
		id := r.id
		log.free(destroyQPCall(false), func() error { return id.DestroyQP() })
		r.qp = nil
	}
	for _, m := range []struct {
		buf string
		mr  *verbs.MR
	}{{"send_buf", &r.mrSend}, {"recv_buf", &r.mrRecv}, {"doorbell", &r.mrDoor}, {"buf", &r.mrData}} {
		if *m.mr != nil {
			log.free(destroyCall("ibv_dereg_mr", mrVar(m.buf)), (*m.mr).Dereg)
			log.add(c.S(c.Call("free", c.C(m.buf))))
			*m.mr = nil
		}
	}
	if r.cq != nil {
		if n, ok := r.cq.(verbs.NotifyCQ); ok && n.Unacked() > 0 {
			log.add(c.S(c.Call("ibv_ack_cq_events", c.C("cq"), c.Dec(int64(n.Unacked()), ""))))
			n.AckEvents(n.Unacked())
		}
		log.free(destroyCall("ibv_destroy_cq", "cq"), r.cq.Destroy)
		r.cq = nil
	}
	if r.cc != nil {
		log.free(destroyCall("ibv_destroy_comp_channel", "channel"), r.cc.Destroy)
		r.cc = nil
	}
	if r.pd != nil && !r.sharedPD {
		log.free(destroyCall("ibv_dealloc_pd", "pd"), r.pd.Dealloc)
	}
	r.pd = nil
	if r.id != nil {
		log.free(destroyCall("rdma_destroy_id", "id"), r.id.Destroy)
		r.id = nil
	}
	if r.listener != nil {
		log.free(destroyCall("rdma_destroy_id", "listener"), r.listener.Destroy)
		r.listener = nil
	}
	if r.ec != nil {
		ec := r.ec
		log.free(destroyECCall(), func() error { return ec.Destroy() })
		r.ec = nil
	}
	r.dev, r.iwarp = nil, false
}

// connection is the CM connection's state and what the peer told us.
type connection struct {
	connected    bool
	disconnected bool // rdma_disconnect called, or the peer's DREQ seen
	peerDREQ     bool // the peer hung up (DISCONNECTED) before we did
	lastEvent    string
	eventStatus  int
	remote       *RemoteState
	peerTour     PeerInfo
	// peerCommand starts the other side (PeerCommand), once this server
	// listens; empty in the demo, where the client is on screen.
	peerCommand text.Text
	// roomPlan is the plan a workshop room turned this client away with
	// (nil: none): RoomPlan.
	roomPlan *RoomPlanError
}

// hangUp sends the DREQ on a connection still up. rdma_destroy_id would
// send it too; doing it explicitly makes the peer's DISCONNECTED prompt
// and visible.
func (cn *connection) hangUp(id verbs.CMID, log *teardownLog) {
	if id != nil && cn.connected && !cn.disconnected {
		log.do(disconnectCall().Returned("sends the DREQ"), id.Disconnect)
		cn.disconnected = true
	}
}

// tourState is what only one tour's steps use.
type tourState struct {
	ud        udState // the ud tour's destination and address handle
	atomicOld uint64  // the atomic tour: the counter FETCH_AND_ADD found
	// fetchAdded: the FETCH_AND_ADD completed, so atomicOld is what it
	// found (atomic-unaligned's post fails: the add never ran).
	fetchAdded bool
	// pinRestore puts back the RLIMIT_MEMLOCK the memlock lesson lowered.
	pinRestore func() error
	// wireRemove takes away the rule that drops the peer's packets on a
	// real NIC (impair_real.go). No C: the tour's program has no rule.
	wireRemove func() error
}

// release destroys the ud tour's address handle (before the QP and PD).
func (ts *tourState) release(log *teardownLog) {
	if ts.ud.ah != nil {
		log.free(destroyCall("ibv_destroy_ah", "ah"), ts.ud.ah.Destroy)
		ts.ud.ah = nil
	}
	if ts.pinRestore != nil {
		log.free(restoreMemlockCall(), ts.pinRestore)
		ts.pinRestore = nil
	}
	if ts.wireRemove != nil {
		if err := ts.wireRemove(); err != nil && log.err == nil {
			log.err = err
		}
		ts.wireRemove = nil
	}
}

// lessonRun is the lesson's question for this side and the baselines its
// checks compare against.
type lessonRun struct {
	pred        *Prediction     // nil: the lesson asks nothing
	predState   PredictionState // the learner's pick and what happened
	rnrBaseline uint64          // RNR NAKs the device had sent at rdma_accept
	rnrCounted  bool            // the device counts them (see rnrwait.go)
	// RNR NAKs received when the SEND was posted (timelinefate.go).
	sendRNRBase    uint64
	sendRNRCounted bool
	slept          bool // lost-wakeup: the bounded sleep ran out with no event
	// writeRefused: inline-too-big's WRITE was refused by ibv_post_send,
	// so there is no completion to poll for it.
	writeRefused bool
	// nthPolled: how many completions signal-every-nth polled.
	nthPolled int
}

// hostHooks are what a host plugged in: the one-client server's gate or
// a workshop Room (NewHosted).
type hostHooks struct {
	// events is where the steps read CM events when something else owns
	// the channel; nil means they read ec themselves (events.go).
	events *EventQueue
	gate   *gate
	// onTurnAway hears of every client the gate turns away (OnTurnAway).
	onTurnAway func(who, reason string)
	// sharedCounter, in an atomic workshop room, is the room's counter:
	// the accept hands it out instead of mrData.
	sharedCounter verbs.MR
	// wireFilter, when set, keeps only this connection's packets of a
	// device other connections share (a workshop); called with mu held.
	wireFilter func(verbs.Packet) bool
}

// wireView is this side's share of the wire: its packets, and the
// counters of its QP (wireside.go).
type wireView struct {
	countersAt map[string]uint64 // counters before the current step
	// countersAtPerQP says countersAt are the QP's own (see readCounters).
	countersAtPerQP bool
	// countersEnd are the counters the last step's snapshot kept: the
	// next step's baseline, so what moves between steps is not lost.
	countersEnd      map[string]uint64
	countersEndPerQP bool
	// usedDevice is the device and GID the connection used, last seen
	// with the CM id (Snapshot.UsedDevice).
	usedDevice *DeviceState
	// wireQP and wireDest are this side's QP and its peer's, remembered
	// past teardown; qpCounters are wireQP's last counters.
	wireQP, wireDest uint32
	// wireConn is this side's connection (local, peer) on an iWARP
	// device, whose messages carry no QP (wireiwarp.go).
	wireConn [2]netip.AddrPort
	// iwarpWriteLen counts the bytes of an iWARP Write arriving until its
	// last segment.
	iwarpWriteLen int
	qpCounters    map[string]uint64
	// sawWire: this side's transport packets can be seen (see noteLanding).
	sawWire       bool
	lastPacketSeq uint64
	packets       []WirePacket
	answered      peerOps    // the peer's READs and atomics this NIC answered (peerops.go)
	oneHost       *bool      // the peer is this machine (see peerIsLocal)
	spans         []stepSpan // when each step ran: which step a packet belongs to
}

// memTracking is which bytes of the data buffer and the doorbell changed,
// and when (Sample).
type memTracking struct {
	prevData     []byte
	changes      []ChangeRun // never written in place (changeruns.go)
	prevDoorbell uint64
	doorbellAt   time.Time
}

// journal is what happened, append-only: completions, QP states, the
// timeline, and the snapshot after each finished step (history.go).
type journal struct {
	completions []verbs.WC
	qpHistory   []verbs.QPState
	timeline    []TimelineEntry
	firstSent   map[uint32]time.Time // a request PSN's first copy (wireside.go)
	history     []*Snapshot
	// endRecorded: the Recorder was told of the teardown (once).
	endRecorded bool
}

// demoSide is this session's end of a linked demo: the other side, what
// both share, and the peer's state after each of this session's steps
// (demohistory.go). Its own lock guards it (a leaf: taken after
// demoLink.mu, never with Session.mu wanted inside).
type demoSide struct {
	mu          sync.Mutex
	peer        *Session
	link        *demoLink
	peerHistory []*Snapshot
}

// join links this side to peer through link.
func (d *demoSide) join(peer *Session, link *demoLink) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.peer, d.link = peer, link
}

// linked is the peer and the link (nil, nil when not linked).
func (d *demoSide) linked() (*Session, *demoLink) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.peer, d.link
}

// keepPeer stores the peer's state after step i of a tour of n steps.
func (d *demoSide) keepPeer(i, n int, snap *Snapshot) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.peerHistory == nil {
		d.peerHistory = make([]*Snapshot, n)
	}
	d.peerHistory[i] = snap
}

// peerAfter is the peer's state kept for step i; ok false when none.
func (d *demoSide) peerAfter(i int) (Snapshot, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if i < 0 || i >= len(d.peerHistory) || d.peerHistory[i] == nil {
		return Snapshot{}, false
	}
	return *d.peerHistory[i], true
}

// teardownLog collects the C a teardown ran and its first error.
type teardownLog struct {
	calls []c.Stmt
	err   error
	// left counts this side's objects whose release failed: they are
	// still allocated. The provider's own count would include the
	// peer's objects wherever the two share it (the demo, a workshop).
	left int
}

// do runs f and logs call: failed with its error, or returning 0 where
// the call returns a status. It reports whether f failed.
func (l *teardownLog) do(call c.Stmt, f func() error) bool {
	err := f()
	if err != nil {
		call = failed(call, err)
		if l.err == nil {
			l.err = err
		}
	} else if call.Check != c.NoCheck {
		call = call.Returned("0") // the others return void
	}
	l.calls = append(l.calls, call)
	return err != nil
}

// free releases one of this side's objects: do, and a failure leaves it
// counted as still allocated.
func (l *teardownLog) free(call c.Stmt, f func() error) {
	if l.do(call, f) {
		l.left++
	}
}

// add logs a statement that cannot fail (free).
func (l *teardownLog) add(st c.Stmt) { l.calls = append(l.calls, st) }
