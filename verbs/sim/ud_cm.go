package sim

// rdma_cm's UDP port space: RDMA_PS_UDP ids "connect" with a Service ID
// Resolution exchange (SIDR_REQ, SIDR_REP), not REQ/REP/RTU. The client
// learns the server QP's number and Q_Key and an address vector to it in
// its RDMA_CM_EVENT_ESTABLISHED; nothing is set up between the two QPs,
// and the server gets no event after its rdma_accept.
//
// In the sim the TCP connection that carried the exchange stays open as
// the link the two devices' datagrams travel on (ud.go's udLinkTo).

import (
	"context"
	"net"
	"net/netip"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
)

// SIDR private-data limits (IBA 12.11: SIDR_REQ 216 bytes less rdma_cm's
// 36-byte header; SIDR_REP 136 bytes), as the kernel checks them.
const (
	sidrReqPrivateDataSize = 216 - 36
	sidrRepPrivateDataSize = 136
)

// SIDR_REP statuses (enum ib_cm_sidr_status): IB_SIDR_UNSUPPORTED when
// no UDP-space listener has the port, IB_SIDR_REJECT from rdma_reject.
// The client's RDMA_CM_EVENT_UNREACHABLE carries it as event->status
// (the kernel's cma_ib_handler).
const (
	ibSIDRUnsupported = 1
	ibSIDRReject      = 2
)

// The address vector rdma_cm builds for a UD peer over RoCE v2 (measured
// on rxe): source GID index 1 (the IPv4-mapped GID) and hop limit 64.
const (
	udSGIDIndex = 1
	udHopLimit  = 64
)

// requestType is the CM message a listener in port space ps expects.
func requestType(ps verbs.PortSpace) uint8 {
	if ps == verbs.PSUDP {
		return cmSIDRReq
	}
	return cmREQ
}

// udRequestEvent turns the listener's CONNECT_REQUEST into the UD form:
// param.ud carries the private data, padded to the SIDR_REQ's size.
func udRequestEvent(ev verbs.CMEvent, m cmMsg) verbs.CMEvent {
	ev.PrivateData = pad(m.PrivateData, sidrReqPrivateDataSize)
	ev.ResponderResources, ev.InitiatorDepth, ev.RNRRetryCount, ev.QPNum = 0, 0, 0, 0
	return ev
}

// udConnect is rdma_connect on an RDMA_PS_UDP id: send the SIDR_REQ.
func (id *cmID) udConnect(p verbs.ConnParam) error {
	const fn = "rdma_connect"
	if len(p.PrivateData) > sidrReqPrivateDataSize {
		return verbs.Errorf(fn, errEINVAL, "%d bytes of private data; at most %d fit in a SIDR_REQ", len(p.PrivateData), sidrReqPrivateDataSize)
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.state != stRouteResolved {
		return verbs.Errorf(fn, errEINVAL, "route not resolved")
	}
	req := cmMsg{Type: cmSIDRReq, PrivateData: append([]byte(nil), p.PrivateData...)}
	if id.qp != nil {
		req.QPN = id.qp.num
	} else {
		req.QPN = p.QPNum & 0xFFFFFF
	}
	id.startConnect(req, p)
	return nil
}

// udOnReply acts on the SIDR_REP (or the sim's REJ for a rejected
// request). id.mu is held. It reports whether the link stays open.
func (id *cmID) udOnReply(c *conn, m *cmMsg) bool {
	if m.Type != cmSIDRRep || m.Reason != 0 {
		status := ibSIDRReject
		if m.Type == cmSIDRRep {
			status = int(m.Reason)
		}
		id.state = stClosed
		c.abort()
		id.conn = nil
		ev := id.event(verbs.EventUnreachable, status)
		ev.PrivateData = pad(m.PrivateData, sidrRepPrivateDataSize)
		id.ch.post(ev)
		return false
	}
	id.peerKnown, id.peerQPN = true, m.QPN
	id.p.dev.setPeer(m.QPN, id)
	id.state = stEstablished
	ev := id.event(verbs.EventEstablished, 0)
	ev.PrivateData = pad(m.PrivateData, sidrRepPrivateDataSize)
	ev.UD = verbs.UDParam{AHAttr: id.udAHAttr(), QPNum: m.QPN, QKey: verbs.UDPQKey}
	id.ch.post(ev)
	return true
}

// udAHAttr is the address vector rdma_cm hands out to reach the peer: a
// GRH to its RoCE v2 GID from this side's IPv4-mapped GID (index 1, as
// on rxe), on port 1. id.mu is held.
func (id *cmID) udAHAttr() verbs.AHAttr {
	return verbs.AHAttr{DGID: peerGID(id.peer.Addr()), SGIDIndex: udSGIDIndex, HopLimit: udHopLimit,
		IsGlobal: true, PortNum: 1, FlowLabel: roceFlowLabel(id.local.Port(), id.peer.Port())}
}

// roceFlowLabel is the kernel's cma_get_roce_udp_flow_label for an IPv4
// id: a hash of rdma_cm's source and destination ports (measured on rxe:
// source port 54395 to 7471 gave flow_label 645140).
func roceFlowLabel(sport, dport uint16) uint32 {
	return (uint32(sport)*31 + uint32(dport)) & 0xFFFFF
}

// udAccept is rdma_accept on a UD request: the SIDR_REP with this side's
// QP number. No event follows on this side.
func (id *cmID) udAccept(p verbs.ConnParam) error {
	const fn = "rdma_accept"
	if len(p.PrivateData) > sidrRepPrivateDataSize {
		return verbs.Errorf(fn, errEINVAL, "%d bytes of private data; at most %d fit in a SIDR_REP", len(p.PrivateData), sidrRepPrivateDataSize)
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.state != stConnectReq {
		return verbs.Errorf(fn, errEINVAL, "no connection request to accept on this id")
	}
	rep := cmMsg{Type: cmSIDRRep, PrivateData: append([]byte(nil), p.PrivateData...)}
	if id.qp != nil {
		rep.QPN = id.qp.num
	} else {
		rep.QPN = p.QPNum & 0xFFFFFF
	}
	id.state = stEstablished
	id.conn.sendCM(&rep)
	return nil
}

// startConnect sends req from the connect goroutine, as Connect does.
// id.mu is held.
func (id *cmID) startConnect(req cmMsg, p verbs.ConnParam) {
	ctx, cancel := context.WithCancel(context.Background())
	id.cancel = cancel
	id.state = stConnecting
	dst := id.peer
	id.p.goStart(func() { id.connectLoop(ctx, dst, req, p) })
}

// udDisconnect is rdma_disconnect on a UD id, as measured on rxe: it
// returns 0, librdmacm moves the id's QP to ERR, and nothing reaches the
// peer (there is no connection to tear down: the server gets no event).
// id.mu is held.
func (id *cmID) udDisconnect() error {
	if id.state != stEstablished {
		return verbs.Errorf("rdma_disconnect", errEINVAL, "id is not connected")
	}
	if id.qp != nil {
		id.qp.toErr()
	}
	return nil
}

// sidrMessage is a SIDR_REQ or SIDR_REP as the IB CM sends it: the
// request ID names the exchange on both sides (the requester's QPN);
// the reply carries the QP number and rdma_cm's Q_Key.
func sidrMessage(m *cmMsg, src, dst netip.AddrPort, requester uint32) wire.CMMessage {
	if m.Type == cmSIDRReq {
		r := &wire.SIDRREQ{RequestID: commID(m.QPN), PKey: 0xffff, ServiceID: wire.ServiceIDForUDPPort(dst.Port()),
			PrivateData: wire.SIDRREQPrivateData(netip.AddrPortFrom(ipv4Of(src.Addr()), src.Port()), ipv4Of(dst.Addr()), m.PrivateData)}
		return r
	}
	r := &wire.SIDRREP{RequestID: commID(requester), QPN: m.QPN, ServiceID: wire.ServiceIDForUDPPort(src.Port()), QKey: verbs.UDPQKey}
	copy(r.PrivateData[:], m.PrivateData)
	return r
}

// noListenerEvent is what a request to a port nobody listens on gets:
// a REQ is rejected with IB_CM_REJ_INVALID_SERVICE_ID, a SIDR request
// answered with IB_SIDR_UNSUPPORTED. The arguments are fail's.
func noListenerEvent(ps verbs.PortSpace) (verbs.CMEventType, int) {
	if ps == verbs.PSUDP {
		return verbs.EventUnreachable, ibSIDRUnsupported
	}
	return verbs.EventRejected, rejInvalidServiceID
}

// answerOtherPortSpace answers a request from the other port space as
// the IB CM does when no listener of that space has the port: the
// kernel keeps RDMA_PS_TCP and RDMA_PS_UDP ports apart, so a ud client
// finds no UD service behind a write-tour server, and the other way round.
func answerOtherPortSpace(nc net.Conn, got uint8) {
	reply := cmMsg{Type: cmREJ, Reason: rejInvalidServiceID}
	if got == cmSIDRReq {
		reply = cmMsg{Type: cmSIDRRep, Reason: ibSIDRUnsupported}
	}
	nc.Write(append(preamble(), encodeCM(&reply)...))
}
