package sim

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// rnrTimerTable is IBA table 45 (RNR NAK timer field encoding), in µs.
var rnrTimerTable = [32]int{
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920,
	122880, 163840, 245760, 327680, 491520,
}

// sendWQE is a posted send work request and its progress.
type sendWQE struct {
	wr   verbs.SendWR
	segs []memSeg
	// Storage for the common WR's one or two SGEs and one memory range,
	// and the run its first transmission queues: a WRITE posts with one
	// allocation, the WQE itself, instead of four.
	sgl      [2]verbs.SGE
	seg1     [1]memSeg
	run      msgRun
	length   int
	firstPSN uint32
	npkts    int // PSNs the message consumes (READ: response packets)
	signaled bool
	failed   verbs.WCStatus // != success: failed a local check, completes at the head
	goodPkts int            // > 0: a late local fault after this many packets (localfault.go)
	sent     int            // packets transmitted so far (window.go)
	ackBase  int            // where the transmission under way started (msgrun.go reqAckEvery)
	respPkts int            // READ: response packets received
	respOff  int            // READ: bytes received
	rnrTries int
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

// qp is an RC queue pair. Every field below mu, its parts' fields
// included, is guarded by it; the reader goroutine, the RNR and ACK
// timers and the application's posts all take it.
type qp struct {
	dev    *device
	num    uint32
	typ    verbs.QPType // IBV_QPT_RC or IBV_QPT_UD (ud.go)
	pd     *pd
	scq    *cq
	rcq    *cq
	cap    verbs.QPCap
	sigAll bool
	// counters are the device's hw_counters for this QP alone.
	counters [numCounters]atomic.Uint64

	mu        sync.Mutex
	state     verbs.QPState
	destroyed bool
	conn      *conn
	// manual: made with ibv_create_qp (Device.CreateQP); the application
	// owns it and drives its state machine with ibv_modify_qp.
	manual bool
	gen    int // invalidates a pending RNR or ACK timer
	// faults is --wire for the packets this QP sends (faults.go).
	faults verbs.WireFaults
	qpAttrs
	requesterState
	rnrWait
	ackRetry
	responderState
}

// qpAttrs are the attributes ibv_modify_qp (or rdma_cm's modify_qp
// calls) set: where the QP sends and how it retries.
type qpAttrs struct {
	destQPN         uint32
	retryCnt        uint8
	rnrRetry        uint8
	minRNR          uint8
	maxRdAtomic     uint8
	maxDestRdAtomic uint8
	access          verbs.Access // qp_access_flags
	pkeyIndex       uint16
	port            uint8
	pmtu            int   // path MTU in bytes: how WRs are cut into packets
	timeout         uint8 // local ACK timeout code
	ah              verbs.AHAttr
	qkey            uint32 // UD: the Q_Key datagrams must carry
}

// requesterState is the send queue and how far the requester has got
// through it.
type requesterState struct {
	early   []verbs.SendWR // posted before RTS: rxe runs them at RTS
	sqPSN   uint32         // next PSN the requester uses
	sq      []*sendWQE
	sendIdx int       // sq[:sendIdx] have been transmitted
	udOut   []*udSend // UD: sends not yet completed, in post order
	slots   sendSlots // which slots are free again (sqslots.go)
}

// rnrWait is the requester waiting out an RNR NAK.
type rnrWait struct {
	halted   bool // waiting out an RNR NAK
	rnrTimer *time.Timer
}

// stopRNRTimer stops the RNR timer, if one runs.
func (r *rnrWait) stopRNRTimer(p *Provider) {
	p.stopTimer(r.rnrTimer)
	r.rnrTimer = nil
}

// ackRetry: the peer may no longer answer (its DREQ arrived, or its
// connection broke), so unacknowledged packets run the local ACK timer
// (ackTimer) with retriesLeft retransmissions; see retry.go.
type ackRetry struct {
	ackWatch    bool
	ackTimer    *time.Timer
	retriesLeft int
	// reconnected: the QP went through RESET after it was first
	// connected, so its peer's QP may be in ERR (silent) or expect other
	// PSNs: the ACK timer runs from its next RTS on (retry.go).
	reconnected bool
	// startedRetry: a retry went out and no ACK has completed anything
	// since (rxe's comp.started_retry): a NAK then starts no other.
	startedRetry bool
	// compPSN is the oldest PSN not acknowledged yet as far as ACKs and
	// sequence NAKs said (rxe's comp.psn): where a retry starts.
	compPSN   uint32
	compValid bool
}

// stopAckTimer stops the local ACK timer, if one runs.
func (a *ackRetry) stopAckTimer(p *Provider) {
	p.stopTimer(a.ackTimer)
	a.ackTimer = nil
}

// responderState is the receive queue and the responder's place in the
// peer's request stream.
type responderState struct {
	rqPSN uint32 // next PSN the responder expects
	rq    []recvWQE
	srq   *srq // the QP takes its RECVs from it instead of rq (srq.go)
	// srqHeld is the RECV taken from srq for the SEND in progress.
	srqHeld *recvWQE
	msn     uint32
	rcur    respOp
	// lastAcked is the PSN of the responder's last ACK, once acked: how
	// far each ACK moves the peer's window (ack.go covers).
	lastAcked uint32
	acked     bool
	// sentSeqNAK: a PSN sequence error NAK went out and no in-sequence
	// request has arrived since (rxe's resp.sent_psn_nak): one NAK per gap.
	sentSeqNAK bool
	// resources are the READs and atomics executed lately (replay.go).
	resources []rdResource
}

var _ verbs.QP = (*qp)(nil)

// newQP makes an RC QP: in INIT, as rdma_create_qp leaves it, or (manual)
// in RESET, as ibv_create_qp does. fn names the C call in errors.
func newQP(d *device, p *pd, attr verbs.QPInitAttr, fn string, manual bool) (*qp, error) {
	if err := checkQPType(attr.Type, fn, manual); err != nil {
		return nil, err
	}
	s, err := qpSRQ(d, attr, fn)
	if err != nil {
		return nil, err
	}
	c := attr.Cap
	if s != nil { // rxe_qp_chk_cap skips the receive queue's caps: there is none
		c.MaxRecvWR, c.MaxRecvSGE = max(c.MaxRecvWR, 1), max(c.MaxRecvSGE, 1)
	}
	if err := checkQPCaps(c, fn, d.limits().MaxInlineData); err != nil {
		return nil, err
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
	s.use(1)
	q := &qp{
		dev: d, pd: p, scq: scq, rcq: rcq, cap: d.limits().grantedCaps(c), sigAll: attr.SigAll, typ: attr.Type,
		// librdmacm's rdma_create_qp moves the QP to INIT right away.
		state:          verbs.QPSInit,
		requesterState: requesterState{sqPSN: uint32(rand.N(1 << 24))},
		qpAttrs:        qpAttrs{minRNR: d.p.opts.MinRNRTimer, port: 1, pmtu: activeMTU, timeout: d.p.opts.ACKTimeout}, // access: see cmID.CreateQP
	}
	if manual {
		// ibv_create_qp: RESET, nothing set yet (rxe reports path_mtu 256).
		q.state, q.manual, q.access, q.port, q.pmtu, q.timeout, q.minRNR = verbs.QPSReset, true, 0, 0, 256, 0, 0
		q.sqPSN = 0
	}
	if attr.Type == verbs.QPTUD {
		q.initUD()
	}
	q.srq = s
	q.num = d.allocQPN(q)
	d.p.count(func(r *verbs.ResourceCount) { r.QPs++ })
	return q, nil
}

// checkQPCaps is rxe_qp_chk_cap (rxe_qp.c): each cap against the
// device's max_qp_wr (0x4000 on older kernels, 1 << 20 since 5.13; the
// sim keeps the smaller) and RXE_MAX_SGE, 32.
func checkQPCaps(c verbs.QPCap, fn string, maxInline uint32) error {
	if c.MaxSendWR < 1 || c.MaxSendWR > maxQPWR || c.MaxRecvWR < 1 || c.MaxRecvWR > maxQPWR {
		return verbs.Errorf(fn, errEINVAL, "max_send_wr %d / max_recv_wr %d outside 1..%d", c.MaxSendWR, c.MaxRecvWR, maxQPWR)
	}
	if c.MaxSendSGE < 1 || c.MaxSendSGE > maxSGE || c.MaxRecvSGE < 1 || c.MaxRecvSGE > maxSGE {
		return verbs.Errorf(fn, errEINVAL, "max_send_sge %d / max_recv_sge %d outside 1..%d", c.MaxSendSGE, c.MaxRecvSGE, maxSGE)
	}
	if c.MaxInlineData > maxInline {
		return verbs.Errorf(fn, errEINVAL, "max_inline_data %d exceeds %d", c.MaxInlineData, maxInline)
	}
	return nil
}

// rxe's queue limits (rxe_param.h): RXE_MAX_QP_WR and RXE_MAX_SGE.
const (
	maxQPWR = 0x4000
	maxSGE  = 32
)

// rxeCaps is what rxe gives a QP created with c, and what ibv_query_qp
// then reports (measured: TestRxeQueueCaps): each queue is rounded up by
// rxe_queue_init (rxeQueueDepth), and the send WQE is sized for the larger
// of max_send_sge SGEs and max_inline_data bytes, from which both are then
// derived (rxe_qp.c rxe_qp_init_req). The seed's 8/8 WRs, 1 SGE and no
// inline data come back as 15/15 WRs, 1 SGE and 16 bytes of inline data.
// The queues hold that many: a 16th send is ENOMEM, as on rxe.
func rxeCaps(c verbs.QPCap) verbs.QPCap {
	const sgeSize = 16 // sizeof(struct ib_sge)
	wqe := max(c.MaxSendSGE*sgeSize, c.MaxInlineData)
	return verbs.QPCap{
		MaxSendWR: rxeQueueDepth(c.MaxSendWR), MaxRecvWR: rxeQueueDepth(c.MaxRecvWR),
		MaxSendSGE: wqe / sgeSize, MaxRecvSGE: c.MaxRecvSGE, MaxInlineData: wqe,
	}
}

// count adds one to counter i, the device's and this QP's.
func (q *qp) count(i int) {
	q.dev.count(i)
	q.counters[i].Add(1)
}

func (q *qp) Num() uint32        { return q.num }
func (q *qp) Type() verbs.QPType { return q.typ }

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
	q.stopRNRTimer(q.dev.p)
	q.stopAckTimer(q.dev.p)
	q.sq, q.rq, q.conn = nil, nil, nil
	q.srq.use(-1)
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
// peerInitDepth is the initiator depth the peer asked for (see cmAccess).
func (q *qp) toRTR(c *conn, destQPN, rqPSN uint32, maxDestRd, peerInitDepth uint8) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.state != verbs.QPSInit {
		return
	}
	q.state = verbs.QPSRTR
	q.access = cmAccess(peerInitDepth)
	q.destQPN, q.rqPSN, q.maxDestRdAtomic = destQPN, rqPSN, maxDestRd
	q.bindConn(c)
}

func (q *qp) toRTS(retry, rnrRetry, maxRd uint8) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.state != verbs.QPSRTR {
		return
	}
	q.state = verbs.QPSRTS
	q.retryCnt, q.rnrRetry, q.maxRdAtomic = min(retry, 7), min(rnrRetry, 7), maxRd
	q.retriesLeft = int(q.retryCnt)
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
		PortNum: q.port, PKeyIndex: q.pkeyIndex, AH: q.ah, Cap: q.cap, QKey: q.qkey,
		OutstandingSQ: q.sqInUse(), OutstandingRQ: len(q.rq), OutstandingSet: true,
	}, nil
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
	case verbs.OpAcknowledge, verbs.OpAtomicAcknowledge, verbs.OpRDMAReadRespFirst, verbs.OpRDMAReadRespMiddle,
		verbs.OpRDMAReadRespLast, verbs.OpRDMAReadRespOnly:
		q.onResponse(pk)
	default:
		q.onRequest(pk)
	}
}
