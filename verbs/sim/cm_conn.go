package sim

// An established connection's CM: its reader, CM messages, a lost peer, accept, reject and disconnect.

import (
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

func (id *cmID) onCM(c *conn, m *cmMsg) {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.conn != c {
		return
	}
	switch m.Type {
	case cmRTU:
		id.p.stopTimer(id.rtuTimer)
		id.rtuTimer = nil
		if id.state == stAccepted {
			id.state = stEstablished
			id.ch.post(id.event(verbs.EventEstablished, 0))
		}
	case cmDREQ:
		switch id.state {
		case stEstablished, stAccepted:
			id.peerDREQ(c)
		case stDisconnecting:
			// Both sides disconnected at once: the DREQs crossed. As in
			// ib_cm (cm_dreq_handler in IB_CM_DREQ_SENT): this side's DREQ
			// needs no answer any more (its timeout stops), the peer's
			// raises DISCONNECTED, and its DREP waits for rdma_destroy_id
			// (or a second rdma_disconnect). Measured between two guests
			// on rxe: wire/testdata/rxe-two-hosts-dreq-collision*.pcap.
			id.p.stopTimer(id.discTimer)
			id.discTimer = nil
			id.peerDREQ(c)
		}
	case cmDREP:
		switch {
		case id.state == stDisconnecting:
			id.p.stopTimer(id.discTimer)
			id.discTimer = nil
			id.state = stDisconnected
			id.ch.post(id.event(verbs.EventDisconnected, 0))
		case id.state == stDisconnected && id.drepOwed:
			// After a collision the peer's DREP came before this side
			// destroyed its id: ib_cm enters timewait (cm_drep_handler)
			// and sends no DREP of its own; rdma_cm raises no second
			// DISCONNECTED.
			id.drepOwed = false
		}
	}
}

// peerDREQ is the peer's DREQ arriving: like rdma_cm, it only raises
// DISCONNECTED. The QP is the application's; it stays as it is until
// this side calls rdma_disconnect, which moves it to ERR and answers
// with the DREP (until then the peer waits for its DREQ to time out).
// id.mu is held.
func (id *cmID) peerDREQ(c *conn) {
	id.state = stDisconnected
	id.drepOwed = true
	id.ch.post(id.event(verbs.EventDisconnected, 0))
	// The peer's QP is in ERR (or about to be destroyed) and drops
	// whatever this side still sends: only the ACK timer can tell.
	id.p.dev.peerLeft(c)
}

// connLost handles the TCP connection breaking (the peer process died).
func (id *cmID) connLost(c *conn) {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.conn != c || (id.ps == verbs.PSUDP && id.state == stEstablished) {
		return // a UD "connection" is nothing to lose: no event on rxe
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
	if id.ps == verbs.PSUDP {
		return id.udAccept(p)
	}
	if len(p.PrivateData) > verbs.MaxAcceptPrivateData {
		return verbs.Errorf(fn, errEINVAL, "%d bytes of private data; at most %d fit in an IB CM REP", len(p.PrivateData), verbs.MaxAcceptPrivateData)
	}
	if err := checkConnParam(fn, &p, id.p.dev.limits().MaxQPRdAtom); err != nil {
		return err
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.destroyed || id.state != stConnectReq {
		return verbs.Errorf(fn, errEINVAL, "no connection request to accept on this id")
	}
	rep := cmFromParam(cmREP, p)
	if q := id.qp; q != nil {
		q.toRTR(id.conn, id.req.QPN, id.req.PSN, p.ResponderResources, id.req.InitiatorDepth)
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
	id.rtuTimer = id.p.afterFunc(id.p.opts.HandshakeTimeout, id.rtuTimedOut)
	if id.connDead {
		if id.qp != nil {
			id.qp.toErr()
		}
		id.state = stClosed
		id.ch.post(id.event(verbs.EventConnectError, -int(syscall.ECONNRESET)))
	}
	return nil
}

// rtuTimedOut: the client's CM answered the REP with MRAs but its
// application never fetched ESTABLISHED (so no RTU came): the IB CM's REP
// retries run out and rdma_cm posts UNREACHABLE, status -ETIMEDOUT.
func (id *cmID) rtuTimedOut() {
	id.mu.Lock()
	defer id.mu.Unlock()
	id.rtuTimer = nil
	if id.destroyed || id.state != stAccepted {
		return
	}
	if id.qp != nil {
		id.qp.toErr()
	}
	id.state = stClosed
	if id.conn != nil {
		id.conn.abort()
		id.conn = nil
	}
	id.ch.post(id.event(verbs.EventUnreachable, -int(syscall.ETIMEDOUT)))
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
	if id.ps == verbs.PSUDP {
		return id.udDisconnect()
	}
	switch id.state {
	case stEstablished, stAccepted:
	case stDisconnected:
		// Answering the peer's DREQ is fine: QP to ERR, then the DREP
		// (after a collision too: ib_send_cm_drep in IB_CM_DREQ_RCVD).
		// A disconnect with nothing to answer is not.
		if id.drepOwed {
			id.drepOwed = false
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
