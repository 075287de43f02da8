package sim

// Unreliable datagram: address handles, posting a SEND on a UD QP and
// delivering a datagram. There is no ACK, no retry and no RNR NAK: a
// datagram that finds no RECV, a wrong Q_Key or no such QP is dropped at
// the receiver and the sender never hears of it, as on rxe.

import (
	"net/netip"
	"sync"

	"github.com/rdmatour/rdmatour/verbs"
)

// ah is an address handle (struct ibv_ah).
type ah struct {
	pd   *pd
	attr verbs.AHAttr

	mu        sync.Mutex
	destroyed bool
}

var _ verbs.AHMaker = (*pd)(nil)

// CreateAH is ibv_create_ah. Over RoCE every packet needs a GRH, so an
// address vector without is_global is EINVAL (ib_core's
// rdma_check_ah_attr).
func (p *pd) CreateAH(attr verbs.AHAttr) (verbs.AH, error) {
	const fn = "ibv_create_ah"
	p.mu.Lock()
	dead := p.dead
	p.mu.Unlock()
	if dead {
		return nil, verbs.Errorf(fn, errEINVAL, "PD is deallocated")
	}
	if !attr.IsGlobal || !attr.DGID.IsValid() {
		return nil, verbs.Errorf(fn, errEINVAL, "RoCE needs a GRH: is_global must be 1 and grh.dgid the peer's GID")
	}
	if attr.PortNum != 1 {
		return nil, verbs.Errorf(fn, errEINVAL, "port_num %d: sim0 has port 1 only", attr.PortNum)
	}
	p.ref(1)
	p.dev.p.count(func(r *verbs.ResourceCount) { r.AHs++ })
	return &ah{pd: p, attr: attr}, nil
}

func (a *ah) Attr() verbs.AHAttr { return a.attr }

// Destroy is ibv_destroy_ah.
func (a *ah) Destroy() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.destroyed {
		return verbs.Errorf("ibv_destroy_ah", errEINVAL, "address handle already destroyed")
	}
	a.destroyed = true
	a.pd.ref(-1)
	a.pd.dev.p.count(func(r *verbs.ResourceCount) { r.AHs-- })
	return nil
}

func (a *ah) isLive(p *pd) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.destroyed && a.pd == p
}

// udPost is ibv_post_send on a UD QP. Called with q.mu held, the QP in
// RTS (or ERR). The datagram leaves at once and the WR completes at once:
// nothing will ever come back for it.
func (q *qp) udPost(wr verbs.SendWR) error {
	const fn = "ibv_post_send"
	if len(wr.SGList) > int(q.cap.MaxSendSGE) {
		return verbs.Errorf(fn, errEINVAL, "num_sge %d exceeds max_send_sge %d", len(wr.SGList), q.cap.MaxSendSGE)
	}
	if wr.Opcode != verbs.WRSend && wr.Opcode != verbs.WRSendWithImm {
		return verbs.Errorf(fn, errEINVAL, "opcode %s: a UD QP only sends (IBV_WR_SEND, IBV_WR_SEND_WITH_IMM)", wr.Opcode)
	}
	a, _ := wr.UD.AH.(*ah)
	if a == nil || !a.isLive(q.pd) {
		return verbs.Errorf(fn, errEINVAL, "wr.ud.ah is not a live address handle of this QP's PD")
	}
	if q.state == verbs.QPSErr {
		q.udCompleteSend(verbs.WC{WRID: wr.WRID, Status: verbs.WCWRFlushErr, Opcode: wr.Opcode.CompletionOpcode()})
		return nil
	}
	w := &udSend{wc: verbs.WC{WRID: wr.WRID, Status: verbs.WCSuccess, Opcode: wr.Opcode.CompletionOpcode()},
		signaled: q.sigAll || wr.Flags&verbs.SendSignaled != 0}
	if len(q.udOut) >= int(q.cap.MaxSendWR) {
		return verbs.Errorf(fn, errENOMEM, "send queue full: %d WRs outstanding (max_send_wr %d)", len(q.udOut), q.cap.MaxSendWR)
	}
	q.udOut = append(q.udOut, w)
	var payload []byte
	for _, s := range wr.SGList {
		if s.Length == 0 {
			continue
		}
		seg, ok := q.dev.checkRange(s.LKey, s.Addr, uint64(s.Length), q.pd, 0)
		if !ok {
			w.wc.Status, w.signaled = verbs.WCLocProtErr, true
			q.udSent(w)
			q.moveToErr()
			return nil
		}
		payload = appendSegs(payload, []memSeg{seg})
	}
	// rxe's fake_udp_send: a datagram longer than the path MTU is not
	// sent, yet its WR completes successfully, like a UDP packet an IP
	// network drops.
	if len(payload) <= q.pmtu {
		g := &datagram{opcode: verbs.OpUDSendOnly, destQP: wr.UD.RemoteQPN & 0xFFFFFF, psn: q.sqPSN,
			qkey: wr.UD.RemoteQKey, srcQP: q.num, payload: payload}
		if wr.Opcode == verbs.WRSendWithImm {
			g.opcode, g.hasImm, g.imm = verbs.OpUDSendOnlyWithImm, true, wr.ImmData
		}
		q.sqPSN = psnAdd(q.sqPSN, 1)
		if q.dev.sendDatagram(a.attr.DGID, g, func() { q.udSentLocked(w) }) {
			return nil
		}
	} else {
		q.dev.p.log.Debug("sim: UD datagram longer than the path MTU not sent", "len", len(payload), "mtu", q.pmtu)
	}
	q.udSent(w)
	return nil
}

// udSend is a posted UD send waiting for its datagram to leave.
type udSend struct {
	wc       verbs.WC
	signaled bool
	done     bool
}

// udSentLocked is udSent from the connection's writer.
func (q *qp) udSentLocked(w *udSend) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.udSent(w)
}

// udSent marks w's datagram gone (written, or lost on the way) and
// completes, in post order, every send before it that is gone too: a
// UD send completes once its packet left, never earlier. q.mu is held.
func (q *qp) udSent(w *udSend) {
	w.done = true
	for len(q.udOut) > 0 && q.udOut[0].done {
		head := q.udOut[0]
		q.udOut = q.udOut[1:]
		if q.destroyed {
			continue
		}
		if head.signaled || head.wc.Status != verbs.WCSuccess {
			q.udCompleteSend(head.wc)
		}
	}
}

// udCompleteSend and udCompleteRecv post a completion of a UD QP; a
// full CQ loses it, and on the receive side puts the QP in error, as on
// RC (completeSend, completeRecv).
func (q *qp) udCompleteSend(wc verbs.WC) {
	wc.QPNum = q.num
	q.scq.push(wc)
}

func (q *qp) udCompleteRecv(wc verbs.WC) {
	wc.QPNum = q.num
	if !q.rcq.push(wc) && q.state != verbs.QPSErr {
		q.moveToErr()
	}
}

// sendDatagram hands g to the link towards dgid and reports whether there
// is one; sent runs once the datagram is written. Without a link the
// datagram is lost on the way, as on a network with no route.
func (d *device) sendDatagram(dgid netip.Addr, g *datagram, sent func()) bool {
	c := d.udLinkTo(dgid, g.destQP)
	if c == nil {
		d.p.log.Debug("sim: no link to the UD destination; datagram lost", "dgid", dgid)
		return false
	}
	d.traceDatagram(g, true)
	c.tap.datagram(g, true)
	return c.send(outItem{raw: encodeDatagram(g), sent: sent})
}

// udLinkTo picks the connection a datagram to (dgid, qpn) travels on: the
// sim's UD datagrams ride the TCP connection that rdma_cm's SIDR exchange
// opened with that host. The link whose peer owns qpn is preferred.
//
// It runs under q.mu, so it must not take id.mu (the CM takes id.mu,
// then q.mu). It reads what an id registered with setPeer does not
// change afterwards: ps, peer and conn are set before setPeer (under
// d.mu, which orders those writes before these reads), and a destroyed
// id leaves d.peers (dropPeer) while its connection refuses new items.
func (d *device) udLinkTo(dgid netip.Addr, qpn uint32) *conn {
	d.mu.Lock()
	defer d.mu.Unlock()
	match := func(id *cmID) bool {
		return id.ps == verbs.PSUDP && id.conn != nil && peerGID(id.peer.Addr()) == peerGID(dgid)
	}
	if id := d.peers[qpn]; id != nil && match(id) {
		return id.conn
	}
	for _, id := range d.peers {
		if match(id) {
			return id.conn
		}
	}
	return nil
}

// onDatagram delivers a datagram that arrived on c (reader goroutine).
func (d *device) onDatagram(c *conn, g *datagram) {
	d.traceDatagram(g, false)
	c.tap.datagram(g, false)
	q := d.qpByNum(g.destQP)
	if q == nil {
		d.p.log.Debug("sim: datagram for no QP dropped", "qpn", g.destQP)
		return
	}
	q.udReceive(c, g)
}

// udReceive is the responder of a UD QP: checks as rxe's check_keys and
// check_resource, then the GRH and the message into the first RECV.
func (q *qp) udReceive(c *conn, g *datagram) {
	q.mu.Lock()
	defer q.mu.Unlock()
	why := ""
	switch {
	case q.destroyed || q.typ != verbs.QPTUD:
		why = "not a UD QP"
	case q.state != verbs.QPSRTR && q.state != verbs.QPSRTS:
		why = "QP not ready to receive"
	case g.qkey != q.qkey:
		why = "Q_Key mismatch"
	case len(q.rq) == 0:
		why = "no RECV posted" // no RNR NAK on UD: the datagram is gone
	}
	if why != "" {
		q.dev.p.log.Debug("sim: datagram dropped", "qpn", q.num, "why", why)
		return
	}
	r := q.rq[0]
	q.rq = q.rq[1:]
	var segs []memSeg
	total := 0
	for _, s := range r.sges {
		if s.Length == 0 {
			continue
		}
		seg, ok := q.dev.checkRange(s.LKey, s.Addr, uint64(s.Length), q.pd, verbs.AccessLocalWrite)
		if !ok {
			// As on RC: rxe's send_data_in, ERR_MALFORMED_WQE, a class A error.
			q.udCompleteRecv(verbs.WC{WRID: r.wrID, Status: verbs.WCLocQPOpErr, Opcode: verbs.WCRecv})
			q.moveToErr()
			return
		}
		segs = append(segs, seg)
		total += seg.n
	}
	n := verbs.GRHLen + len(g.payload)
	if total >= verbs.GRHLen {
		writeSegs(segs, 0, grhOf(c, g))
	}
	if n > total {
		// Measured on rxe: the GRH is written, the message does not fit,
		// the RECV completes with IBV_WC_LOC_QP_OP_ERR (byte_len 0, no
		// opcode) and the QP goes to ERR.
		q.udCompleteRecv(verbs.WC{WRID: r.wrID, Status: verbs.WCLocQPOpErr, Opcode: verbs.WCSend})
		q.moveToErr()
		return
	}
	writeSegs(segs, verbs.GRHLen, g.payload)
	q.dev.count(cntRDMARecvs)
	wc := verbs.WC{WRID: r.wrID, Status: verbs.WCSuccess, Opcode: verbs.WCRecv, ByteLen: uint32(n),
		SrcQP: g.srcQP, HasGRH: true}
	if g.hasImm {
		wc.HasImm, wc.ImmData = true, g.imm
	}
	q.udCompleteRecv(wc)
}

// checkQPType says which QP types sim0 makes: RC, and UD through
// rdma_create_qp on an RDMA_PS_UDP id.
func checkQPType(t verbs.QPType, fn string, manual bool) error {
	switch {
	case t == verbs.QPTRC:
		return nil
	case t == verbs.QPTUD && !manual:
		return nil
	case t == verbs.QPTUD:
		return verbs.Errorf(fn, errEINVAL, "the simulated NIC makes UD QPs only with rdma_create_qp on an RDMA_PS_UDP id")
	}
	return verbs.Errorf(fn, errEINVAL, "%s: the simulated NIC does IBV_QPT_RC and IBV_QPT_UD only", t)
}

// initUD does what librdmacm's ucma_init_ud_qp does right after
// rdma_create_qp on a UD id: INIT (P_Key index, port, the Q_Key
// rdma_cm chose), RTR, RTS with sq_psn 0. A UD QP needs no peer to be
// ready, so it can send and receive at once. Datagrams are cut at the
// port's MTU (rxe's get_mtu for UD), not at a path MTU.
func (q *qp) initUD() {
	q.state, q.qkey, q.sqPSN, q.access = verbs.QPSRTS, verbs.UDPQKey, 0, 0
	q.pmtu = activeMTU
}

// checkPortSpaceType: librdmacm brings an RDMA_PS_UDP id's QP up with
// a Q_Key (ucma_init_ud_qp) and an RDMA_PS_TCP id's with access flags
// (ucma_init_conn_qp); the other QP type refuses those attributes, so
// rdma_create_qp fails with EINVAL.
func checkPortSpaceType(ps verbs.PortSpace, t verbs.QPType) error {
	if (ps == verbs.PSUDP) != (t == verbs.QPTUD) {
		return verbs.Errorf("rdma_create_qp", errEINVAL, "%s on an %s id: UD QPs go with RDMA_PS_UDP, RC QPs with RDMA_PS_TCP", t, ps)
	}
	return nil
}
