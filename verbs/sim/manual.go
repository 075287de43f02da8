package sim

import (
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

// The manual QP bring-up: ibv_create_qp (a QP in RESET that belongs to no
// CM id), rdma_init_qp_attr (the attributes the CM knows), ibv_modify_qp
// (the state machine, checked like the kernel's ib_modify_qp_is_ok plus
// rxe's attribute checks), ibv_destroy_qp and rdma_establish.
//
// How an application's QP finds its connection: the simulated transport is
// the CM's TCP connection, so INIT -> RTR binds the QP to the connection
// whose peer has dest_qp_num (the peer's QPN arrived in the REQ or REP).

// Limits of sim0 that ibv_modify_qp checks.
const (
	maxRdAtomic = 128 // max_qp_rd_atom / max_qp_init_rd_atom: rxe's, measured
	hopLimit    = 64  // what rdma_cm puts in the GRH for RoCE (IPV6_DEFAULT_HOPLIMIT)
)

// CreateQP is ibv_create_qp: the QP starts in RESET.
func (d *device) CreateQP(p verbs.PD, attr verbs.QPInitAttr) (verbs.QP, error) {
	const fn = "ibv_create_qp"
	pp, ok := p.(*pd)
	if !ok || pp == nil || pp.dev != d {
		return nil, verbs.Errorf(fn, errEINVAL, "PD is not a PD of sim0")
	}
	pp.mu.Lock()
	dead := pp.dead
	pp.mu.Unlock()
	if dead {
		return nil, verbs.Errorf(fn, errEINVAL, "PD is deallocated")
	}
	q, err := newQP(d, pp, attr, fn, true)
	if err != nil {
		return nil, err
	}
	return q, nil
}

func (d *device) qpByNum(n uint32) *qp {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.qps[n]
}

func (d *device) setPeer(peerQPN uint32, id *cmID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.peers[peerQPN] = id
}

func (d *device) dropPeer(id *cmID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for n, x := range d.peers {
		if x == id {
			delete(d.peers, n)
		}
	}
}

// connFor is the live CM connection to the peer QP destQPN, or nil.
func (d *device) connFor(destQPN uint32) *conn {
	d.mu.Lock()
	id := d.peers[destQPN]
	d.mu.Unlock()
	if id == nil {
		return nil
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed {
		return nil
	}
	return id.conn
}

// peerLeft tells every QP bound to c (the id's own and the application's)
// that its peer may no longer answer: the peer's DREQ arrived or the
// connection broke.
func (d *device) peerLeft(c *conn) {
	for _, q := range d.boundTo(c) {
		q.peerLost()
	}
}

// boundTo is the device's QPs whose RTR bound them to c.
func (d *device) boundTo(c *conn) []*qp {
	d.mu.Lock()
	qs := make([]*qp, 0, len(d.qps))
	for _, q := range d.qps {
		qs = append(qs, q)
	}
	d.mu.Unlock()
	out := qs[:0]
	for _, q := range qs {
		q.mu.Lock()
		if q.conn == c {
			out = append(out, q)
		}
		q.mu.Unlock()
	}
	return out
}

// legalTransition reports whether mask is a legal RC ibv_modify_qp from cur (the
// state transition table; any state may go to RESET or ERR with
// IBV_QP_STATE alone). It says which bits are missing or not allowed.
func legalTransition(cur verbs.QPState, attr verbs.QPAttr, mask verbs.QPAttrMask) (next verbs.QPState, missing, extra verbs.QPAttrMask, ok bool) {
	next = cur
	if mask&verbs.QPAttrState != 0 {
		next = attr.State
	}
	req, opt, found := verbs.RCTransition(cur, next)
	if !found {
		return next, 0, 0, false
	}
	body := mask &^ verbs.QPAttrState
	missing = req &^ body
	extra = body &^ (req | opt)
	return next, missing, extra, missing == 0 && extra == 0
}

// Modify is ibv_modify_qp.
func (q *qp) Modify(attr verbs.QPAttr, mask verbs.QPAttrMask) error {
	const fn = "ibv_modify_qp"
	// Bind to the connection before taking q.mu (lock order: id, then qp).
	var c *conn
	if mask&verbs.QPAttrState != 0 && attr.State == verbs.QPSRTR {
		c = q.dev.connFor(attr.DestQPNum)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.destroyed {
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x destroyed", q.num)
	}
	cur := q.state
	if mask&verbs.QPAttrState != 0 && (attr.State < verbs.QPSReset || attr.State > verbs.QPSErr) {
		return verbs.Errorf(fn, errEINVAL, "qp_state %d is not a QP state", int(attr.State))
	}
	next, missing, extra, ok := legalTransition(cur, attr, mask)
	if !ok {
		return transitionError(cur, next, missing, extra)
	}
	if err := checkModifyValues(attr, mask, q.dev.limits(), q.dev.portAttr().GIDs); err != nil {
		return err
	}
	q.apply(cur, next, attr, mask, c)
	return nil
}

// transitionError explains an illegal ibv_modify_qp transition the way
// the kernel refuses it: EINVAL naming what is missing or not allowed.
func transitionError(cur, next verbs.QPState, missing, extra verbs.QPAttrMask) error {
	const fn = "ibv_modify_qp"
	if cur == verbs.QPSRTS && next == verbs.QPSSQD {
		// Legal for the IBA, but sim0 has no send-queue drain.
		return verbs.Errorf(fn, syscall.EOPNOTSUPP, "%s -> %s: the simulated NIC does not implement send-queue drain", cur, next)
	}
	switch {
	case missing != 0 && extra != 0:
		return verbs.Errorf(fn, errEINVAL, "%s -> %s: missing %s; not allowed here: %s", cur, next, missing, extra)
	case missing != 0:
		return verbs.Errorf(fn, errEINVAL, "%s -> %s needs %s", cur, next, missing)
	case extra != 0:
		return verbs.Errorf(fn, errEINVAL, "%s -> %s does not take %s", cur, next, extra)
	}
	return verbs.Errorf(fn, errEINVAL, "%s -> %s is not a legal transition", cur, next)
}

// checkModifyValues checks the attribute values (rxe_qp_chk_attr and friends).
func checkModifyValues(attr verbs.QPAttr, mask verbs.QPAttrMask, lim Limits, table []verbs.GIDEntry) error {
	const fn = "ibv_modify_qp"
	if mask&verbs.QPAttrPort != 0 && attr.PortNum != 1 {
		return verbs.Errorf(fn, errEINVAL, "port_num %d: sim0 has port 1 only", attr.PortNum)
	}
	if mask&verbs.QPAttrPKeyIndex != 0 && attr.PKeyIndex != 0 {
		return verbs.Errorf(fn, errEINVAL, "pkey_index %d: sim0's P_Key table has one entry (index 0)", attr.PKeyIndex)
	}
	if mask&verbs.QPAttrPathMTU != 0 && (verbs.MTUEnum(attr.PathMTU) == 0 || attr.PathMTU > maxMTU) {
		return verbs.Errorf(fn, errEINVAL, "path_mtu %d bytes: must be an IB MTU no larger than the port's max_mtu %d", attr.PathMTU, maxMTU)
	}
	if mask&verbs.QPAttrAV != 0 {
		// rdma_check_ah_attr (core/verbs.c): a RoCE address vector
		// must carry a GRH. Measured on rxe: TestAddressingFacts.
		if !attr.AH.IsGlobal || !attr.AH.DGID.IsValid() {
			return verbs.Errorf(fn, errEINVAL, "ah_attr without a GRH (is_global=0): RoCE addresses every packet by GID, so it needs is_global=1 and a dgid")
		}
		if err := checkSGIDIndex(fn, attr.AH, table); err != nil {
			return err
		}
	}
	if mask&verbs.QPAttrDestQPN != 0 && attr.DestQPNum > 0xFFFFFF {
		return verbs.Errorf(fn, errEINVAL, "dest_qp_num 0x%x is wider than 24 bits", attr.DestQPNum)
	}
	// rxe_qp_chk_attr checks max_rd_atomic against max_qp_rd_atom but not
	// max_dest_rd_atomic, which rxe_qp_from_attr just rounds up to a power
	// of two. Measured on 6.1: TestEditTableOnRealVerbs
	// (modify-rtr.max_dest_rd_atomic=200 connects and the tour runs).
	if mask&verbs.QPAttrMaxQPRdAtomic != 0 && attr.MaxRdAtomic > lim.MaxQPRdAtom {
		return verbs.Errorf(fn, errEINVAL, "max_rd_atomic %d exceeds sim0's %d", attr.MaxRdAtomic, lim.MaxQPRdAtom)
	}
	if (mask&verbs.QPAttrRetryCnt != 0 && attr.RetryCnt > 7) || (mask&verbs.QPAttrRNRRetry != 0 && attr.RNRRetry > 7) ||
		(mask&verbs.QPAttrMinRNRTimer != 0 && attr.MinRNRTimer > 31) || (mask&verbs.QPAttrTimeout != 0 && attr.Timeout > 31) {
		return verbs.Errorf(fn, errEINVAL, "retry_cnt/rnr_retry are 3 bits, min_rnr_timer/timeout 5 bits")
	}
	return nil
}

// apply moves the QP from cur to next with the attributes the mask names.
// Called with q.mu held.
func (q *qp) apply(cur, next verbs.QPState, attr verbs.QPAttr, mask verbs.QPAttrMask, c *conn) {
	switch next {
	case verbs.QPSReset:
		q.gen++
		q.stopRNRTimer(q.dev.p)
		q.stopAckTimer(q.dev.p)
		q.ackRetry, q.sentSeqNAK = ackRetry{}, false
		// RESET discards every WR without a completion.
		q.sq, q.rq, q.sendIdx, q.rcur, q.halted, q.msn, q.resources = nil, nil, 0, respOp{}, false, 0, nil
		q.early = nil
		q.resetSlots()
		q.conn, q.destQPN, q.rqPSN, q.sqPSN = nil, 0, 0, 0
		q.state = verbs.QPSReset
		q.ackWatch, q.reconnected = false, cur != verbs.QPSReset
		return
	case verbs.QPSErr:
		q.moveToErr()
		return
	}
	if mask&verbs.QPAttrPKeyIndex != 0 {
		q.pkeyIndex = attr.PKeyIndex
	}
	if mask&verbs.QPAttrPort != 0 {
		q.port = attr.PortNum
	}
	if mask&verbs.QPAttrAccessFlags != 0 {
		q.access = attr.AccessFlags
	}
	if mask&verbs.QPAttrMinRNRTimer != 0 {
		q.minRNR = attr.MinRNRTimer
	}
	if next == verbs.QPSRTR && cur == verbs.QPSInit {
		q.ah, q.pmtu, q.destQPN = attr.AH, attr.PathMTU, attr.DestQPNum
		q.rqPSN, q.maxDestRdAtomic = attr.RQPSN&0xFFFFFF, attr.MaxDestRdAtom
		// The simulated wire: the CM connection to the QP dest_qp_num.
		// None (a made-up QPN): packets go nowhere, as on a real fabric.
		q.bindConn(c)
	}
	if next == verbs.QPSRTS && cur == verbs.QPSRTR {
		q.sqPSN, q.timeout, q.retryCnt, q.rnrRetry, q.maxRdAtomic = attr.SQPSN&0xFFFFFF, attr.Timeout, attr.RetryCnt, attr.RNRRetry, attr.MaxRdAtomic
		q.retriesLeft = int(q.retryCnt)
	}
	q.state = next
	if next == verbs.QPSRTS && cur == verbs.QPSRTR && q.reconnected {
		// Measured on rxe (TestRecoveryFacts): a requester brought back
		// while its peer stays in ERR, or with an sq_psn the peer does
		// not expect, ends in transport retry counter exceeded. Nothing
		// on the simulated wire is lost, so only the timer can say it.
		q.retriesLeft = int(q.retryCnt)
		q.watchAcks()
	}
	if next == verbs.QPSRTS {
		q.pump()
	}
}

// Destroy is ibv_destroy_qp for a QP made with Device.CreateQP.
func (q *qp) Destroy() error {
	const fn = "ibv_destroy_qp"
	if !q.manual {
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x belongs to an rdma_cm id (rdma_create_qp): use rdma_destroy_qp", q.num)
	}
	q.mu.Lock()
	dead := q.destroyed
	q.mu.Unlock()
	if dead {
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x already destroyed", q.num)
	}
	q.destroy()
	return nil
}
