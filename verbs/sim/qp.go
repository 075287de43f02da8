package sim

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// rnrTimerTable is IBA table 45 (RNR NAK timer field encoding), in µs.
var rnrTimerTable = [32]int{
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920,
	122880, 163840, 245760, 327680, 491520,
}

// qpAccess is what rdma_cm grants an RC QP (cma_ib_init_qp_attr +
// ib_cm's qp_access_flags when responder resources > 0).
const qpAccess = verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead

// sendWQE is a posted send work request and its progress.
type sendWQE struct {
	wr       verbs.SendWR
	segs     []memSeg
	length   int
	firstPSN uint32
	npkts    int // PSNs the message consumes (READ: response packets)
	signaled bool
	failed   verbs.WCStatus // != success: failed a local check, completes at the head
	respPkts int            // READ: response packets received
	respOff  int            // READ: bytes received
	rnrTries int
	seqTries int // PSN sequence error NAKs answered by a retry
}

func (w *sendWQE) lastPSN() uint32 { return psnAdd(w.firstPSN, w.npkts-1) }

type recvWQE struct {
	wrID uint64
	sges []verbs.SGE
}

// respOp is the responder's multi-packet message in progress.
type respOp struct {
	kind   int // 0 none, 1 SEND, 2 RDMA WRITE
	segs   []memSeg
	limit  int // SEND: RECV buffer size; WRITE: DMA length
	off    int
	active bool
}

const (
	respNone = iota
	respSend
	respWrite
)

// qp is an RC queue pair. Every field below mu is guarded by it; the
// reader goroutine, the RNR timer and the application's posts all take it.
type qp struct {
	dev    *device
	num    uint32
	pd     *pd
	scq    *cq
	rcq    *cq
	cap    verbs.QPCap
	sigAll bool

	mu              sync.Mutex
	state           verbs.QPState
	destroyed       bool
	destQPN         uint32
	sqPSN           uint32 // next PSN the requester uses
	rqPSN           uint32 // next PSN the responder expects
	retryCnt        uint8
	rnrRetry        uint8
	minRNR          uint8
	maxRdAtomic     uint8
	maxDestRdAtomic uint8
	conn            *conn
	// manual: made with ibv_create_qp (Device.CreateQP); the application
	// owns it and drives its state machine with ibv_modify_qp.
	manual    bool
	access    verbs.Access // qp_access_flags
	pkeyIndex uint16
	port      uint8
	pmtu      int   // path MTU in bytes: how WRs are cut into packets
	timeout   uint8 // local ACK timeout code
	ah        verbs.AHAttr

	sq       []*sendWQE
	sendIdx  int  // sq[:sendIdx] have been transmitted
	halted   bool // waiting out an RNR NAK
	rnrTimer *time.Timer
	// ackWatch: the peer may no longer answer (its DREQ arrived, or its
	// connection broke), so unacknowledged packets run the local ACK
	// timer (ackTimer) with retriesLeft retransmissions; see retry.go.
	ackWatch    bool
	ackTimer    *time.Timer
	retriesLeft int
	gen         int // invalidates a pending RNR timer

	rq   []recvWQE
	msn  uint32
	rcur respOp
	// sentSeqNAK: a PSN sequence error NAK went out and no in-sequence
	// request has arrived since (rxe's resp.sent_psn_nak): one NAK per gap.
	sentSeqNAK bool
}

var _ verbs.QP = (*qp)(nil)

// newQP makes an RC QP: in INIT, as rdma_create_qp leaves it, or (manual)
// in RESET, as ibv_create_qp does. fn names the C call in errors.
func newQP(d *device, p *pd, attr verbs.QPInitAttr, fn string, manual bool) (*qp, error) {
	if attr.Type != verbs.QPTRC {
		return nil, verbs.Errorf(fn, errEINVAL, "%s: the simulated NIC only does IBV_QPT_RC", attr.Type)
	}
	c := attr.Cap
	if c.MaxSendWR < 1 || c.MaxSendWR > 1024 || c.MaxRecvWR < 1 || c.MaxRecvWR > 1024 {
		return nil, verbs.Errorf(fn, errEINVAL, "max_send_wr %d / max_recv_wr %d outside 1..1024", c.MaxSendWR, c.MaxRecvWR)
	}
	if c.MaxSendSGE < 1 || c.MaxSendSGE > 4 || c.MaxRecvSGE < 1 || c.MaxRecvSGE > 4 {
		return nil, verbs.Errorf(fn, errEINVAL, "max_send_sge %d / max_recv_sge %d outside 1..4", c.MaxSendSGE, c.MaxRecvSGE)
	}
	if c.MaxInlineData > 256 {
		return nil, verbs.Errorf(fn, errEINVAL, "max_inline_data %d exceeds 256", c.MaxInlineData)
	}
	scq, ok1 := attr.SendCQ.(*cq)
	rcq, ok2 := attr.RecvCQ.(*cq)
	if !ok1 || !ok2 || scq == nil || rcq == nil || scq.dev != d || rcq.dev != d {
		return nil, verbs.Errorf(fn, errEINVAL, "send_cq and recv_cq must be CQs of sim0")
	}
	for _, c := range []*cq{scq, rcq} {
		c.mu.Lock()
		dead := c.dead
		c.refs++
		c.mu.Unlock()
		if dead {
			scq.mu.Lock()
			scq.refs--
			scq.mu.Unlock()
			if c == rcq && rcq != scq {
				rcq.mu.Lock()
				rcq.refs--
				rcq.mu.Unlock()
			}
			return nil, verbs.Errorf(fn, errEINVAL, "CQ is destroyed")
		}
	}
	p.ref(1)
	q := &qp{
		dev: d, pd: p, scq: scq, rcq: rcq, cap: c, sigAll: attr.SigAll,
		// librdmacm's rdma_create_qp moves the QP to INIT right away.
		state:  verbs.QPSInit,
		sqPSN:  uint32(rand.N(1 << 24)),
		minRNR: d.p.opts.MinRNRTimer,
		access: qpAccess, port: 1, pmtu: mtu, timeout: 14,
	}
	if manual {
		// ibv_create_qp: RESET, nothing set yet (rxe reports path_mtu 256).
		q.state, q.manual, q.access, q.port, q.pmtu, q.timeout, q.minRNR = verbs.QPSReset, true, 0, 0, 256, 0, 0
		q.sqPSN = 0
	}
	q.num = d.allocQPN(q)
	d.p.count(func(r *verbs.ResourceCount) { r.QPs++ })
	return q, nil
}

func (q *qp) Num() uint32        { return q.num }
func (q *qp) Type() verbs.QPType { return verbs.QPTRC }

// destroy is ibv_destroy_qp.
func (q *qp) destroy() {
	q.mu.Lock()
	if q.destroyed {
		q.mu.Unlock()
		return
	}
	q.destroyed = true
	q.state = verbs.QPSReset
	q.gen++
	q.dev.p.stopTimer(q.rnrTimer)
	q.rnrTimer = nil
	q.stopAckTimer()
	q.sq, q.rq, q.conn = nil, nil, nil
	q.mu.Unlock()
	q.dev.mu.Lock()
	delete(q.dev.qps, q.num)
	q.dev.mu.Unlock()
	for _, c := range []*cq{q.scq, q.rcq} {
		c.mu.Lock()
		c.refs--
		c.mu.Unlock()
	}
	q.pd.ref(-1)
	q.dev.p.count(func(r *verbs.ResourceCount) { r.QPs-- })
}

// toRTR and toRTS are the modify_qp calls rdma_cm makes on connect/accept.
func (q *qp) toRTR(c *conn, destQPN, rqPSN uint32, maxDestRd uint8) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.state != verbs.QPSInit {
		return
	}
	q.state = verbs.QPSRTR
	q.conn, q.destQPN, q.rqPSN, q.maxDestRdAtomic = c, destQPN, rqPSN, maxDestRd
}

func (q *qp) toRTS(retry, rnrRetry, maxRd uint8) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.state != verbs.QPSRTR {
		return
	}
	q.state = verbs.QPSRTS
	q.retryCnt, q.rnrRetry, q.maxRdAtomic = min(retry, 7), min(rnrRetry, 7), maxRd
	q.pump()
}

func (q *qp) startPSN() uint32 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.sqPSN
}

// Query is ibv_query_qp.
func (q *qp) Query() (verbs.QPAttr, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.destroyed {
		return verbs.QPAttr{}, verbs.Errorf("ibv_query_qp", errEINVAL, "QP 0x%x destroyed", q.num)
	}
	return verbs.QPAttr{
		State: q.state, PathMTU: q.pmtu, DestQPNum: q.destQPN,
		RQPSN: q.rqPSN, SQPSN: q.sqPSN, AccessFlags: q.access,
		MaxRdAtomic: q.maxRdAtomic, MaxDestRdAtom: q.maxDestRdAtomic,
		MinRNRTimer: q.minRNR, Timeout: q.timeout, RetryCnt: q.retryCnt, RNRRetry: q.rnrRetry,
		PortNum: q.port, PKeyIndex: q.pkeyIndex, AH: q.ah, Cap: q.cap,
		OutstandingSQ: len(q.sq), OutstandingRQ: len(q.rq), OutstandingSet: true,
	}, nil
}

// complete posts a completion; an overrun CQ puts the QP in error.
func (q *qp) complete(c *cq, wc verbs.WC) {
	wc.QPNum, wc.SrcQP = q.num, q.destQPN
	if !c.push(wc) && q.state != verbs.QPSErr {
		q.moveToErr()
	}
}

// moveToErr is modify_qp(IBV_QPS_ERR): every outstanding WR completes
// with IBV_WC_WR_FLUSH_ERR.
func (q *qp) moveToErr() {
	if q.state == verbs.QPSErr || q.destroyed {
		return
	}
	q.state = verbs.QPSErr
	q.halted = false
	q.gen++
	q.dev.p.stopTimer(q.rnrTimer)
	q.rnrTimer = nil
	q.stopAckTimer()
	sq, rq := q.sq, q.rq
	q.sq, q.rq, q.sendIdx, q.rcur = nil, nil, 0, respOp{}
	for _, w := range sq {
		q.complete(q.scq, verbs.WC{WRID: w.wr.WRID, Status: verbs.WCWRFlushErr, Opcode: w.wr.Opcode.CompletionOpcode()})
	}
	for _, r := range rq {
		q.complete(q.rcq, verbs.WC{WRID: r.wrID, Status: verbs.WCWRFlushErr, Opcode: verbs.WCRecv})
	}
}

// errorOut completes w with status (errors always complete, signaled or
// not), flushes everything else and puts the QP in error.
func (q *qp) errorOut(w *sendWQE, status verbs.WCStatus) {
	for i, x := range q.sq {
		if x == w {
			q.sq = append(q.sq[:i:i], q.sq[i+1:]...)
			if i < q.sendIdx {
				q.sendIdx--
			}
			q.complete(q.scq, verbs.WC{WRID: w.wr.WRID, Status: status, Opcode: w.wr.Opcode.CompletionOpcode(), ByteLen: uint32(w.length)})
			break
		}
	}
	if status != verbs.WCSuccess {
		q.dev.count(cntSendErr)
	}
	q.moveToErr()
}

// PostSend is ibv_post_send.
func (q *qp) PostSend(wr verbs.SendWR) error {
	const fn = "ibv_post_send"
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.destroyed {
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x destroyed", q.num)
	}
	switch q.state {
	case verbs.QPSReset, verbs.QPSInit, verbs.QPSRTR:
		// The kernel drivers refuse a send before RTS (rxe: "qp state
		// must be RTS or SQD"); libibverbs returns the errno.
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x is in state %s; sends need %s", q.num, q.state.CName(), verbs.QPSRTS.CName())
	}
	if len(wr.SGList) > int(q.cap.MaxSendSGE) {
		return verbs.Errorf(fn, errEINVAL, "num_sge %d exceeds max_send_sge %d", len(wr.SGList), q.cap.MaxSendSGE)
	}
	switch wr.Opcode {
	case verbs.WRSend, verbs.WRSendWithImm, verbs.WRRDMAWrite, verbs.WRRDMAWriteWithImm, verbs.WRRDMARead:
	default:
		return verbs.Errorf(fn, errEINVAL, "opcode %s not supported on an RC QP of the simulated NIC", wr.Opcode)
	}
	wr.SGList = append([]verbs.SGE(nil), wr.SGList...)
	if q.state == verbs.QPSErr {
		// Posting to a QP in error is allowed and completes at once as flushed.
		q.complete(q.scq, verbs.WC{WRID: wr.WRID, Status: verbs.WCWRFlushErr, Opcode: wr.Opcode.CompletionOpcode()})
		return nil
	}
	if len(q.sq) >= int(q.cap.MaxSendWR) {
		return verbs.Errorf(fn, errENOMEM, "send queue full: %d WRs outstanding (max_send_wr %d)", len(q.sq), q.cap.MaxSendWR)
	}
	w := &sendWQE{wr: wr, signaled: q.sigAll || wr.Flags&verbs.SendSignaled != 0}
	// The local SGE check happens when the NIC executes the WR; here that
	// is now, and a failure completes when the WR reaches the head.
	need := verbs.Access(0)
	if wr.Opcode == verbs.WRRDMARead {
		need = verbs.AccessLocalWrite // the NIC writes the response locally
	}
	for _, s := range wr.SGList {
		if s.Length == 0 {
			continue
		}
		seg, ok := q.dev.checkRange(s.LKey, s.Addr, uint64(s.Length), q.pd, need)
		if !ok {
			w.failed = verbs.WCLocProtErr
			break
		}
		w.segs = append(w.segs, seg)
		w.length += seg.n
	}
	if w.failed == verbs.WCSuccess && w.length > 1<<31 {
		w.failed = verbs.WCLocLenErr
	}
	if w.failed == verbs.WCSuccess {
		w.npkts = max(1, (w.length+q.pmtu-1)/q.pmtu)
		w.firstPSN = q.sqPSN
		q.sqPSN = psnAdd(q.sqPSN, w.npkts)
	}
	q.sq = append(q.sq, w)
	q.pump()
	q.checkHeadFailed()
	return nil
}

// pump transmits WRs that have not been sent yet.
func (q *qp) pump() {
	for q.sendIdx < len(q.sq) && !q.halted && q.state == verbs.QPSRTS {
		w := q.sq[q.sendIdx]
		if w.failed != verbs.WCSuccess {
			return
		}
		q.transmit(w, 0)
		q.sendIdx++
		q.armAckTimer()
	}
}

func (q *qp) checkHeadFailed() {
	if len(q.sq) > 0 && q.sq[0].failed != verbs.WCSuccess && q.state == verbs.QPSRTS {
		q.errorOut(q.sq[0], q.sq[0].failed)
	}
}

// transmit sends packets from..npkts-1 of w.
func (q *qp) transmit(w *sendWQE, from int) {
	if q.conn == nil {
		return
	}
	if from == 0 {
		q.dev.count(cntRDMASends)
	}
	wr := &w.wr
	if wr.Opcode == verbs.WRRDMARead {
		q.conn.send(outItem{pkt: &packet{
			Opcode: verbs.OpRDMAReadRequest, AckReq: true, DestQP: q.destQPN, PSN: w.firstPSN,
			HasRETH: true, RETH: verbs.RETH{VA: wr.RemoteAddr, RKey: wr.RKey, DMALen: uint32(w.length)},
		}})
		return
	}
	write := wr.Opcode == verbs.WRRDMAWrite || wr.Opcode == verbs.WRRDMAWriteWithImm
	imm := wr.Opcode == verbs.WRRDMAWriteWithImm || wr.Opcode == verbs.WRSendWithImm
	for i := from; i < w.npkts; i++ {
		first, last := i == 0, i == w.npkts-1
		var op uint8
		switch {
		case first && last && write && imm:
			op = verbs.OpRDMAWriteOnlyWithImm
		case first && last && write:
			op = verbs.OpRDMAWriteOnly
		case first && last && imm:
			op = verbs.OpSendOnlyWithImm
		case first && last:
			op = verbs.OpSendOnly
		case first && write:
			op = verbs.OpRDMAWriteFirst
		case first:
			op = verbs.OpSendFirst
		case last && write && imm:
			op = verbs.OpRDMAWriteLastWithImm
		case last && write:
			op = verbs.OpRDMAWriteLast
		case last && imm:
			op = verbs.OpSendLastWithImm
		case last:
			op = verbs.OpSendLast
		case write:
			op = verbs.OpRDMAWriteMiddle
		default:
			op = verbs.OpSendMiddle
		}
		pk := &packet{Opcode: op, AckReq: last, DestQP: q.destQPN, PSN: psnAdd(w.firstPSN, i)}
		if first && write {
			pk.HasRETH = true
			pk.RETH = verbs.RETH{VA: wr.RemoteAddr, RKey: wr.RKey, DMALen: uint32(w.length)}
		}
		if last && imm {
			pk.HasImm, pk.Imm = true, wr.ImmData
		}
		off := i * q.pmtu
		n := min(q.pmtu, w.length-off)
		if n > 0 {
			pk.segs, pk.segLen = sliceSegs(w.segs, off, n), n
		}
		q.conn.send(outItem{pkt: pk})
	}
}

// receive dispatches a packet that arrived on connection c for this QP
// (reader goroutine). Only a QP whose RTR bound it to c takes it.
func (q *qp) receive(c *conn, pk *packet) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.destroyed || q.conn != c {
		return
	}
	switch pk.Opcode {
	case verbs.OpAcknowledge, verbs.OpRDMAReadRespFirst, verbs.OpRDMAReadRespMiddle,
		verbs.OpRDMAReadRespLast, verbs.OpRDMAReadRespOnly:
		q.onResponse(pk)
	default:
		q.onRequest(pk)
	}
}

// ---- requester side: ACKs, NAKs and read responses ----

// ackThrough completes every transmitted WR whose last PSN is at or before
// psn (an ACK acknowledges everything before it).
func (q *qp) ackThrough(psn uint32) {
	for len(q.sq) > 0 && q.sendIdx > 0 {
		w := q.sq[0]
		if w.wr.Opcode == verbs.WRRDMARead || psnDiff(psn, w.lastPSN()) < 0 {
			break
		}
		q.sq = q.sq[1:]
		q.sendIdx--
		q.ackProgress()
		if w.signaled {
			q.complete(q.scq, verbs.WC{WRID: w.wr.WRID, Status: verbs.WCSuccess, Opcode: w.wr.Opcode.CompletionOpcode(), ByteLen: uint32(w.length)})
		}
		if q.state != verbs.QPSRTS {
			return
		}
	}
	q.checkHeadFailed()
}

func (q *qp) findSent(psn uint32) (int, *sendWQE) {
	for i, w := range q.sq[:q.sendIdx] {
		if d := psnDiff(psn, w.firstPSN); d >= 0 && d < w.npkts {
			return i, w
		}
	}
	return -1, nil
}

func (q *qp) onResponse(pk *packet) {
	if q.state != verbs.QPSRTS {
		return
	}
	if pk.Opcode != verbs.OpAcknowledge {
		q.onReadResponse(pk)
		return
	}
	syn := pk.AETH.Syndrome
	switch syn & 0xE0 {
	case 0x00:
		q.ackThrough(pk.PSN)
	case 0x20: // RNR NAK
		q.dev.count(cntRcvdRNRErr)
		q.ackThrough(psnAdd(pk.PSN, -1))
		_, w := q.findSent(pk.PSN)
		if w == nil || q.state != verbs.QPSRTS {
			return
		}
		w.rnrTries++
		if q.rnrRetry != 7 && w.rnrTries > int(q.rnrRetry) {
			q.dev.count(cntRetryRNRExceeded)
			q.errorOut(w, verbs.WCRNRRetryExcErr)
			return
		}
		q.halted = true
		q.gen++
		gen, psn := q.gen, pk.PSN
		d := time.Duration(rnrTimerTable[syn&0x1F]) * time.Microsecond
		q.dev.p.stopTimer(q.rnrTimer)
		q.rnrTimer = q.dev.p.afterFunc(d, func() { q.rnrResume(gen, psn) })
	case 0x60: // NAK
		q.ackThrough(psnAdd(pk.PSN, -1))
		_, w := q.findSent(pk.PSN)
		if w == nil || q.state != verbs.QPSRTS {
			return
		}
		var st verbs.WCStatus
		switch syn {
		case verbs.SyndromeNAKPSNSeqErr:
			q.onSeqNAK(w, pk.PSN)
			return
		case verbs.SyndromeNAKInvReq:
			st = verbs.WCRemInvReqErr
		case verbs.SyndromeNAKRemAccess:
			st = verbs.WCRemAccessErr
		default:
			st = verbs.WCRemOpErr
		}
		q.errorOut(w, st)
	}
}

func (q *qp) rnrResume(gen int, psn uint32) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if gen != q.gen || q.state != verbs.QPSRTS {
		return
	}
	q.rnrTimer = nil
	q.halted = false
	q.resendFrom(psn)
}

// resendFrom retransmits everything already sent from psn on (go-back-N),
// then carries on with unsent WRs.
func (q *qp) resendFrom(psn uint32) {
	i, w := q.findSent(psn)
	if w != nil {
		q.transmit(w, psnDiff(psn, w.firstPSN))
		for _, x := range q.sq[i+1 : q.sendIdx] {
			q.transmit(x, 0)
		}
	}
	q.pump()
}

func (q *qp) onReadResponse(pk *packet) {
	if len(q.sq) == 0 || q.sendIdx == 0 {
		return
	}
	// Earlier WRITEs/SENDs are implicitly acknowledged by a later response.
	q.ackThrough(psnAdd(pk.PSN, -1))
	if len(q.sq) == 0 || q.sendIdx == 0 || q.state != verbs.QPSRTS {
		return
	}
	w := q.sq[0]
	if w.wr.Opcode != verbs.WRRDMARead || psnDiff(pk.PSN, psnAdd(w.firstPSN, w.respPkts)) != 0 {
		q.dev.count(cntDuplicateRequest)
		return
	}
	if pk.HasAETH && pk.AETH.Syndrome&0xE0 != 0 {
		q.errorOut(w, verbs.WCRemOpErr)
		return
	}
	n := len(pk.Payload)
	if w.respOff+n > w.length {
		q.errorOut(w, verbs.WCBadRespErr)
		return
	}
	writeSegs(w.segs, w.respOff, pk.Payload)
	w.respOff += n
	w.respPkts++
	q.ackProgress()
	if pk.Opcode == verbs.OpRDMAReadRespLast || pk.Opcode == verbs.OpRDMAReadRespOnly {
		if w.respOff != w.length || w.respPkts != w.npkts {
			q.errorOut(w, verbs.WCBadRespErr)
			return
		}
		q.sq = q.sq[1:]
		q.sendIdx--
		if w.signaled {
			q.complete(q.scq, verbs.WC{WRID: w.wr.WRID, Status: verbs.WCSuccess, Opcode: verbs.WCRDMARead, ByteLen: uint32(w.length)})
		}
		q.checkHeadFailed()
	}
}

// ---- responder side ----

func (q *qp) sendAck(psn uint32, syn uint8) {
	if q.conn == nil {
		return
	}
	q.conn.send(outItem{pkt: &packet{
		Opcode: verbs.OpAcknowledge, DestQP: q.destQPN, PSN: psn,
		HasAETH: true, AETH: verbs.AETH{Syndrome: syn, MSN: q.msn & 0xFFFFFF},
	}})
}

// nakFatal sends a NAK and puts the responder QP in error, as rxe does for
// class C errors (invalid request, remote access, remote operation).
func (q *qp) nakFatal(psn uint32, syn uint8) {
	q.sendAck(psn, syn)
	q.moveToErr()
}

func (q *qp) rnrNAK(psn uint32) {
	q.dev.count(cntSendRNRErr)
	q.sendAck(psn, verbs.SyndromeRNRNAKBase|q.minRNR&0x1F)
}

func (q *qp) onRequest(pk *packet) {
	if q.state != verbs.QPSRTR && q.state != verbs.QPSRTS {
		return
	}
	if !q.inSequence(pk) {
		return
	}
	op := pk.Opcode
	switch op {
	case verbs.OpSendFirst, verbs.OpSendOnly, verbs.OpSendOnlyWithImm,
		verbs.OpSendMiddle, verbs.OpSendLast, verbs.OpSendLastWithImm:
		q.onSend(pk)
	case verbs.OpRDMAReadRequest:
		q.onRead(pk)
	default:
		q.onWrite(pk)
	}
}

func (q *qp) onSend(pk *packet) {
	op := pk.Opcode
	starts := op == verbs.OpSendFirst || op == verbs.OpSendOnly || op == verbs.OpSendOnlyWithImm
	if starts != (q.rcur.kind == respNone) || (!starts && q.rcur.kind != respSend) {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	if starts {
		if len(q.rq) == 0 {
			q.rnrNAK(pk.PSN)
			return
		}
		r := q.rq[0]
		var segs []memSeg
		total := 0
		for _, s := range r.sges {
			if s.Length == 0 {
				continue
			}
			seg, ok := q.dev.checkRange(s.LKey, s.Addr, uint64(s.Length), q.pd, verbs.AccessLocalWrite)
			if !ok {
				q.rq = q.rq[1:]
				q.complete(q.rcq, verbs.WC{WRID: r.wrID, Status: verbs.WCLocProtErr, Opcode: verbs.WCRecv})
				q.nakFatal(pk.PSN, verbs.SyndromeNAKRemOpErr)
				return
			}
			segs = append(segs, seg)
			total += seg.n
		}
		q.rcur = respOp{kind: respSend, segs: segs, limit: total}
	}
	n := len(pk.Payload)
	if q.rcur.off+n > q.rcur.limit {
		r := q.rq[0]
		q.rq = q.rq[1:]
		q.complete(q.rcq, verbs.WC{WRID: r.wrID, Status: verbs.WCLocLenErr, Opcode: verbs.WCRecv, ByteLen: uint32(q.rcur.off + n)})
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	writeSegs(q.rcur.segs, q.rcur.off, pk.Payload)
	q.rcur.off += n
	q.rqPSN = psnAdd(q.rqPSN, 1)
	if op == verbs.OpSendLast || op == verbs.OpSendLastWithImm || op == verbs.OpSendOnly || op == verbs.OpSendOnlyWithImm {
		r := q.rq[0]
		q.rq = q.rq[1:]
		q.msn++
		q.dev.count(cntRDMARecvs)
		wc := verbs.WC{WRID: r.wrID, Status: verbs.WCSuccess, Opcode: verbs.WCRecv, ByteLen: uint32(q.rcur.off)}
		if pk.HasImm {
			wc.HasImm, wc.ImmData = true, pk.Imm
		}
		q.rcur = respOp{}
		q.complete(q.rcq, wc)
	}
	if pk.AckReq && q.state != verbs.QPSErr {
		q.sendAck(pk.PSN, verbs.SyndromeACK)
	}
}

func (q *qp) onWrite(pk *packet) {
	op := pk.Opcode
	starts := pk.HasRETH
	last := op == verbs.OpRDMAWriteLast || op == verbs.OpRDMAWriteLastWithImm || op == verbs.OpRDMAWriteOnly || op == verbs.OpRDMAWriteOnlyWithImm
	if starts != (q.rcur.kind == respNone) || (!starts && q.rcur.kind != respWrite) {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	// WRITE_WITH_IMM consumes a RECV on its last packet; without one the
	// responder answers RNR NAK before touching memory for that packet.
	if pk.HasImm && len(q.rq) == 0 {
		q.rnrNAK(pk.PSN)
		return
	}
	if starts && q.access&verbs.AccessRemoteWrite == 0 {
		// rxe's check_op_valid: the QP does not allow remote writes.
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	if starts {
		var seg memSeg
		if pk.RETH.DMALen > 0 {
			var ok bool
			seg, ok = q.dev.checkRange(pk.RETH.RKey, pk.RETH.VA, uint64(pk.RETH.DMALen), q.pd, verbs.AccessRemoteWrite)
			if !ok {
				q.nakFatal(pk.PSN, verbs.SyndromeNAKRemAccess)
				return
			}
		}
		q.rcur = respOp{kind: respWrite, segs: []memSeg{seg}, limit: int(pk.RETH.DMALen)}
	}
	n := len(pk.Payload)
	if q.rcur.off+n > q.rcur.limit || (last && q.rcur.off+n != q.rcur.limit) {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	if n > 0 {
		writeSegs(q.rcur.segs, q.rcur.off, pk.Payload)
	}
	q.rcur.off += n
	q.rqPSN = psnAdd(q.rqPSN, 1)
	if last {
		q.msn++
		q.dev.count(cntRDMARecvs)
		total := q.rcur.off
		q.rcur = respOp{}
		if pk.HasImm {
			r := q.rq[0]
			q.rq = q.rq[1:]
			q.complete(q.rcq, verbs.WC{WRID: r.wrID, Status: verbs.WCSuccess, Opcode: verbs.WCRecvRDMAWithImm, ByteLen: uint32(total), HasImm: true, ImmData: pk.Imm})
		}
	}
	if pk.AckReq && q.state != verbs.QPSErr {
		q.sendAck(pk.PSN, verbs.SyndromeACK)
	}
}

func (q *qp) onRead(pk *packet) {
	if q.rcur.kind != respNone {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	if q.access&verbs.AccessRemoteRead == 0 {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	n := int(pk.RETH.DMALen)
	var seg memSeg
	if n > 0 {
		var ok bool
		seg, ok = q.dev.checkRange(pk.RETH.RKey, pk.RETH.VA, uint64(n), q.pd, verbs.AccessRemoteRead)
		if !ok {
			q.nakFatal(pk.PSN, verbs.SyndromeNAKRemAccess)
			return
		}
	}
	q.msn++
	q.dev.count(cntRDMARecvs)
	npkts := max(1, (n+q.pmtu-1)/q.pmtu)
	if q.conn != nil {
		for i := range npkts {
			first, last := i == 0, i == npkts-1
			op := verbs.OpRDMAReadRespMiddle
			switch {
			case first && last:
				op = verbs.OpRDMAReadRespOnly
			case first:
				op = verbs.OpRDMAReadRespFirst
			case last:
				op = verbs.OpRDMAReadRespLast
			}
			rp := &packet{Opcode: op, DestQP: q.destQPN, PSN: psnAdd(pk.PSN, i)}
			if first || last {
				rp.HasAETH, rp.AETH = true, verbs.AETH{Syndrome: verbs.SyndromeACK, MSN: q.msn & 0xFFFFFF}
			}
			if k := min(q.pmtu, n-i*q.pmtu); k > 0 {
				rp.segs, rp.segLen = sliceSegs([]memSeg{seg}, i*q.pmtu, k), k
			}
			q.conn.send(outItem{pkt: rp})
		}
	}
	q.rqPSN = psnAdd(q.rqPSN, npkts)
}

// PostRecv is ibv_post_recv.
func (q *qp) PostRecv(wr verbs.RecvWR) error {
	const fn = "ibv_post_recv"
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.destroyed {
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x destroyed", q.num)
	}
	if q.state == verbs.QPSReset {
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x is in state %s", q.num, q.state.CName())
	}
	if len(wr.SGList) > int(q.cap.MaxRecvSGE) {
		return verbs.Errorf(fn, errEINVAL, "num_sge %d exceeds max_recv_sge %d", len(wr.SGList), q.cap.MaxRecvSGE)
	}
	if q.state == verbs.QPSErr {
		q.complete(q.rcq, verbs.WC{WRID: wr.WRID, Status: verbs.WCWRFlushErr, Opcode: verbs.WCRecv})
		return nil
	}
	if len(q.rq) >= int(q.cap.MaxRecvWR) {
		return verbs.Errorf(fn, errENOMEM, "receive queue full: %d RECVs posted (max_recv_wr %d)", len(q.rq), q.cap.MaxRecvWR)
	}
	q.rq = append(q.rq, recvWQE{wrID: wr.WRID, sges: append([]verbs.SGE(nil), wr.SGList...)})
	return nil
}

func (q *qp) toErr() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.moveToErr()
}
