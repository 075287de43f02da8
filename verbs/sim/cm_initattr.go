package sim

// What the CM tells a manually made QP: rdma_init_qp_attr, from what the
// REQ/REP exchange taught the id, and rdma_establish, the RTU for an id
// without a QP (manual.go has the QP side).

import (
	"net/netip"

	"github.com/rdmatour/rdmatour/verbs"
)

// myPSN is the starting PSN this side announces (or announced) in its REQ
// or REP. id.mu must be held.
func (id *cmID) myPSN() uint32 {
	if id.psnSent {
		return id.localPSN
	}
	if id.qp != nil {
		return id.qp.startPSN()
	}
	return id.seqNum
}

// peerGID is the GID of the peer's address as RoCE v2 writes it.
func peerGID(a netip.Addr) netip.Addr {
	a = a.Unmap()
	if a.Is4() {
		return netip.AddrFrom16(a.As16()) // ::ffff:a.b.c.d
	}
	return a
}

// InitQPAttr is rdma_init_qp_attr. What it returns follows the kernel
// (rdma_init_qp_attr -> cma_ib_init_qp_attr before the CM has a
// connection, ib_cm_init_qp_attr after), as measured on rxe:
//
//   - an id without a device (idle, or a listener): EINVAL;
//   - before rdma_connect: the RESET->INIT attributes (pkey_index, port,
//     qp_access_flags 0) whatever state is asked for, so an RTR built
//     from them fails in ibv_modify_qp with EINVAL;
//   - active side after rdma_connect, before the REP: INIT as above but
//     with the connection's access flags; RTR and RTS are EINVAL;
//   - passive side from CONNECT_REQUEST on, active side from
//     CONNECT_RESPONSE on: INIT, RTR and RTS.
//
// path_mtu is sim0's active MTU, 1024, as rxe's on a 1500-byte netdev.
// timeout is rdma_cm's on rxe, 19 (Options.ACKTimeout, rxeACKTimeout).
// A deliberate difference from rxe: min_rnr_timer is the simulated NIC's
// Options.MinRNRTimer (the kernel says 0, i.e. 655.36 ms), the value
// sim0's rdma_create_qp QPs use.
func (id *cmID) InitQPAttr(state verbs.QPState) (verbs.QPAttr, verbs.QPAttrMask, error) {
	const fn = "rdma_init_qp_attr"
	id.mu.Lock()
	defer id.mu.Unlock()
	cmConn, peer, err := id.cmKnowledgeLocked(fn)
	if err != nil {
		return verbs.QPAttr{}, 0, err
	}
	if state == verbs.QPSInit || !cmConn {
		a, m := id.initAttrLocked(state, cmConn)
		return a, m, nil
	}
	if !peer {
		return verbs.QPAttr{}, 0, verbs.Errorf(fn, errEINVAL, "%s: the peer's QPN and PSN are not known yet (they come with the REP)", state.CName())
	}
	switch state {
	case verbs.QPSRTR:
		a, m := id.rtrAttrLocked()
		return a, m, nil
	case verbs.QPSRTS:
		a, m := id.rtsAttrLocked()
		return a, m, nil
	}
	return verbs.QPAttr{}, 0, verbs.Errorf(fn, errEINVAL, "rdma_cm has no attributes for %s", state.CName())
}

// cmKnowledgeLocked says, from the id's state, whether the CM has a
// connection yet (cmConn) and whether it has the peer's QPN and PSN
// (peer); an id without a device, or whose connection is over, has no
// attributes to give. id.mu is held.
func (id *cmID) cmKnowledgeLocked(fn string) (cmConn, peer bool, err error) {
	if id.destroyed {
		return false, false, verbs.Errorf(fn, errEINVAL, "id destroyed")
	}
	if id.dev == nil || id.state == stListen {
		return false, false, verbs.Errorf(fn, errEINVAL, "the id has no device yet (resolve the address or wait for a connect request)")
	}
	switch id.state {
	case stIdle, stBound, stAddrResolved, stRouteResolved:
		return false, false, nil
	case stConnecting:
		return true, false, nil
	case stConnectReq, stAccepted, stRepRcvd, stEstablished:
		return true, id.peerKnown, nil
	}
	return false, false, verbs.Errorf(fn, errEINVAL, "the connection is over (rdma_cm state %d)", id.state)
}

// initAttrLocked is the RESET->INIT attributes, given for state: with
// the connection's access flags once the CM has one. id.mu is held.
func (id *cmID) initAttrLocked(state verbs.QPState, cmConn bool) (verbs.QPAttr, verbs.QPAttrMask) {
	a := verbs.QPAttr{State: state, PKeyIndex: 0, PortNum: 1}
	if cmConn {
		// ib_cm's cm_init_qp_init_attr.
		a.AccessFlags = verbs.AccessRemoteWrite
		if id.respRes > 0 {
			a.AccessFlags |= verbs.AccessRemoteRead | verbs.AccessRemoteAtomic
		}
	}
	return a, verbs.QPAttrState | verbs.QPAttrAccessFlags | verbs.QPAttrPKeyIndex | verbs.QPAttrPort
}

// rtrAttrLocked is the INIT->RTR attributes: the path to the peer and
// its QPN and PSN. id.mu is held.
func (id *cmID) rtrAttrLocked() (verbs.QPAttr, verbs.QPAttrMask) {
	a := verbs.QPAttr{
		State: verbs.QPSRTR, PathMTU: activeMTU, DestQPNum: id.peerQPN, RQPSN: id.peerPSN,
		MaxDestRdAtom: id.respRes, MinRNRTimer: id.p.opts.MinRNRTimer,
		AH: verbs.AHAttr{
			IsGlobal: true, DGID: peerGID(id.peer.Addr()), SGIDIndex: gidIndexInUse, HopLimit: hopLimit, PortNum: 1,
			// rdma_cm derives the RoCE v2 flow label from the
			// connection's ports; sim0 does the same, differently.
			FlowLabel: (uint32(id.local.Port())<<4 ^ uint32(id.peer.Port())) & 0xFFFFF,
		},
	}
	return a, verbs.QPAttrState | verbs.QPAttrAV | verbs.QPAttrPathMTU | verbs.QPAttrDestQPN |
		verbs.QPAttrRQPSN | verbs.QPAttrMaxDestRdAtomic | verbs.QPAttrMinRNRTimer
}

// rtsAttrLocked is the RTR->RTS attributes: this side's PSN, the ACK
// timeout and the retry counts the REQ/REP agreed. id.mu is held.
func (id *cmID) rtsAttrLocked() (verbs.QPAttr, verbs.QPAttrMask) {
	a := verbs.QPAttr{
		State: verbs.QPSRTS, SQPSN: id.myPSN(), Timeout: id.p.opts.ACKTimeout, RetryCnt: min(id.retryCnt, 7),
		RNRRetry: min(id.rnrRetry, 7), MaxRdAtomic: id.initDepth,
	}
	return a, verbs.QPAttrState | verbs.QPAttrSQPSN | verbs.QPAttrTimeout | verbs.QPAttrRetryCnt |
		verbs.QPAttrRNRRetry | verbs.QPAttrMaxQPRdAtomic
}

// Establish is rdma_establish: the active side's RTU for an id without a
// QP. No event follows on this side (measured on rxe); the passive side
// gets ESTABLISHED.
func (id *cmID) Establish() error {
	const fn = "rdma_establish"
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed {
		return verbs.Errorf(fn, errEINVAL, "id destroyed")
	}
	if id.qp != nil {
		return verbs.Errorf(fn, errEINVAL, "the id has a QP (rdma_create_qp): librdmacm sends the RTU itself")
	}
	if id.state != stRepRcvd {
		return verbs.Errorf(fn, errEINVAL, "no connect response to answer on this id")
	}
	id.conn.sendCM(&cmMsg{Type: cmRTU})
	id.state = stEstablished
	return nil
}
