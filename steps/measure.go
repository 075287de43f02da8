package steps

import (
	"context"
	"fmt"
	"slices"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The measured run at the end of signal-every-nth (issue 25 item 9): the
// lesson's queue, now timed. For each size, one signaled WRITE at a time
// (post, busy-poll its completion: ib_write_lat's loop shape, though
// ib_write_lat ping-pongs between two hosts) and then a window of WRITEs
// as deep as the send queue, every SignalEvery-th signaled (ib_write_bw's
// shape, with -t the queue's depth). The numbers are this device's: rxe
// and the simulated NIC are software, so they say what the queue does,
// not what an RDMA NIC can do.

// MeasureSizes are the WRITE sizes the measured run times; the largest is
// the server's whole buffer.
var measureSizes = [...]int{8, 64, 512, BufSize}

const (
	// measureLatencyOps is how many single WRITEs make one size's median.
	measureLatencyOps = 200
	// measureWindowOps is how many WRITEs one size's bandwidth run posts;
	// a multiple of SignalEvery, so the last one is signaled.
	measureWindowOps = 1000
	// WRIDMeasure is one below the first wr_id of the measured run.
	WRIDMeasure = 100000
)

// Measurement is what the measured run found.
type Measurement struct {
	// Depth is the send queue's granted depth: the WRITEs in flight.
	Depth  int
	Points []MeasuredPoint
}

// MeasuredPoint is one size's numbers.
type MeasuredPoint struct {
	Size int
	// LatencyUS is the median post->poll time of one signaled WRITE.
	LatencyUS float64
	// MiBps is the bandwidth with Depth WRITEs in flight (2^20 bytes/s,
	// perftest's MB).
	MiBps float64
}

// stepMeasureWrites times WRITEs of each measureSizes size.
func stepMeasureWrites(ctx context.Context, s *Session) (Outcome, error) {
	ctx, cancel := s.boundPeerWait(ctx)
	defer cancel()
	attr, err := s.qp.Query()
	if err != nil {
		return Outcome{}, err
	}
	_, target := s.remoteBuffer()
	m := &measurer{s: s, ctx: ctx, target: target, wrID: WRIDMeasure}
	res := &Measurement{Depth: int(attr.Cap.MaxSendWR)}
	for _, size := range measureSizes {
		p, err := m.measure(size, res.Depth)
		if err != nil {
			return withC(Outcome{}, m.stmts...), err
		}
		res.Points = append(res.Points, p)
	}
	return withC(measureOutcome(res), m.stmts...), nil
}

// measure times one size, one WRITE at a time and then depth in flight,
// and adds the C of its first post and poll, or of the call that failed.
func (m *measurer) measure(size, depth int) (MeasuredPoint, error) {
	call := m.postCall(size)
	lat, err := m.latency(size)
	var bw float64
	if err == nil {
		bw, err = m.window(size, depth)
	}
	if err != nil {
		m.stmts = append(m.stmts, m.failedCall(call, err))
		return MeasuredPoint{}, err
	}
	m.stmts = append(m.stmts, call.Returned(fmt.Sprintf("0, then %d more one at a time: median %.1f µs", measureLatencyOps-1, lat)),
		measurePoll().Returned(fmt.Sprintf("busy-polled; then %d with %d in flight: %.1f MiB/s", measureWindowOps, depth, bw)))
	return MeasuredPoint{Size: size, LatencyUS: lat, MiBps: bw}, nil
}

// measureGeneric is the step's C before it runs.
func measureGeneric() string {
	return generic(postSendCall(verbs.SendWR{Opcode: verbs.WRRDMAWrite}, "buf", c.Expr{}, Target{}, ""), measurePoll())
}

func measurePoll() c.Stmt { return pollOne(verbs.WCRDMAWrite, "RDMA_WRITE completion") }

// measurer posts the run's WRITEs and spins on the CQ for their
// completions: a wait through the completion channel would time the
// wake-up, not the WRITE.
type measurer struct {
	s           *Session
	ctx         context.Context
	target      Target
	wrID        uint64
	outstanding int
	stmts       []c.Stmt
	// failedWC is the completion that ended the run, if one did.
	failedWC *verbs.WC
	// wc is where reap polls into: a busy loop that allocated a result
	// per completion would time the allocator too.
	wc   [1]verbs.WC
	spin verbs.Spinner
	cur  verbs.SendWR // the WR post reuses for the size being timed
}

func (m *measurer) wr(size int) verbs.SendWR {
	return writeWR(verbs.WRRDMAWrite, m.wrID+1, m.s.mrData, uint32(size), m.target.Addr, m.target.RKey)
}

// postCall is the C of the size's first WRITE, the one shown.
func (m *measurer) postCall(size int) c.Stmt {
	return postSendCall(m.wr(size), "buf", c.Dec(int64(size), fmt.Sprint(size)), m.target, "ibv_post_send WRITE")
}

// failedCall is the C that failed: the poll whose completion failed, or
// the post.
func (m *measurer) failedCall(post c.Stmt, err error) c.Stmt {
	if m.failedWC != nil {
		return measurePoll().Returned(wcText(*m.failedWC))
	}
	return postFailed(post, err)
}

func (m *measurer) post(size int, signaled bool) error {
	if len(m.cur.SGList) == 0 || m.cur.SGList[0].Length != uint32(size) {
		// One WR per size, reused: a WR built per post allocates its
		// scatter list each time, which the loop would time.
		m.cur = m.wr(size)
	}
	m.wrID++
	m.cur.WRID, m.cur.Flags = m.wrID, 0
	if signaled {
		m.cur.Flags = verbs.SendSignaled
	}
	return m.s.qp.PostSend(m.cur)
}

// reap spins until one completion comes: it retires its WR and every
// earlier one, so outstanding drops to the WRs posted after it.
func (m *measurer) reap() error {
	for {
		m.spin.Tick()
		n, err := verbs.PollInto(m.s.cq, m.wc[:])
		if err != nil {
			return err
		}
		if n == 1 {
			if wc := m.wc[0]; wc.Status != verbs.WCSuccess {
				m.s.addCompletion(wc)
				m.s.completionFate(wc)
				m.failedWC = &wc
				return &CompletionError{What: "RDMA_WRITE completion", WC: wc}
			}
			m.outstanding = int(m.wrID - m.wc[0].WRID)
			return nil
		}
		if err := m.ctx.Err(); err != nil {
			return err
		}
	}
}

// latency is the median of measureLatencyOps post->poll round trips, µs.
func (m *measurer) latency(size int) (float64, error) {
	us := make([]float64, 0, measureLatencyOps)
	for range measureLatencyOps {
		t0 := time.Now()
		if err := m.post(size, true); err != nil {
			return 0, err
		}
		if err := m.reap(); err != nil {
			return 0, err
		}
		us = append(us, float64(time.Since(t0).Nanoseconds())/1e3)
	}
	slices.Sort(us)
	return us[len(us)/2], nil
}

// window posts measureWindowOps WRITEs keeping up to depth in flight,
// every SignalEvery-th signaled, and returns MiB/s.
func (m *measurer) window(size, depth int) (float64, error) {
	m.outstanding = 0
	t0 := time.Now()
	for i := 1; i <= measureWindowOps; i++ {
		for m.outstanding >= depth {
			if err := m.reap(); err != nil {
				return 0, err
			}
		}
		if err := m.post(size, i%SignalEvery == 0); err != nil {
			return 0, err
		}
		m.outstanding++
	}
	for m.outstanding > 0 {
		if err := m.reap(); err != nil {
			return 0, err
		}
	}
	return float64(size*measureWindowOps) / time.Since(t0).Seconds() / (1 << 20), nil
}

func measureOutcome(res *Measurement) Outcome {
	var results []KV
	for _, p := range res.Points {
		results = append(results, KV{Name: text.Text{EN: fmt.Sprintf("%d B", p.Size), ZH: fmt.Sprintf("%d 字节", p.Size)},
			Value: text.Text{EN: fmt.Sprintf("%.1f µs one at a time; %.2f MiB/s with %d in flight", p.LatencyUS, p.MiBps, res.Depth),
				ZH: fmt.Sprintf("逐个发 %.1f µs；%d 个在途 %.2f MiB/s", p.LatencyUS, res.Depth, p.MiBps)}})
	}
	note := text.Text{EN: fmt.Sprintf("Each size ran %d WRITEs one at a time (the median post->poll round trip) and %d with up to %d in flight, every %dth signaled. A small WRITE's time is the round trip to the peer's NIC and back; a large one's is the bytes. These are a software device's numbers: they show the shape, not what an RDMA NIC does.", measureLatencyOps, measureWindowOps, res.Depth, SignalEvery),
		ZH: fmt.Sprintf("每个大小先逐个跑 %d 个 WRITE（取 post->poll 往返的中位数），再跑 %d 个、最多 %d 个同时在途、每 %d 个 signal 一个。小 WRITE 的时间是到对端网卡的一个来回，大 WRITE 的时间花在字节上。这是软件设备的数字：它们显示的是形状，不是 RDMA 网卡的能力。", measureLatencyOps, measureWindowOps, res.Depth, SignalEvery)}
	// perftest's flags for the same loops (perftest
	// src/perftest_parameters.c: -s size, -n iterations, -t tx depth,
	// -Q cq moderation): what TestRealMeasuredRunAgainstPerftest runs.
	same := text.Text{EN: fmt.Sprintf(" perftest runs the same loops: ib_write_lat -s SIZE -n %d and ib_write_bw -s SIZE -n %d -t %d -Q %d, with -R, -d and the server's address as the tour's end names them.", measureLatencyOps, measureWindowOps, res.Depth, SignalEvery),
		ZH: fmt.Sprintf("perftest 跑的是同样的循环：ib_write_lat -s SIZE -n %d 和 ib_write_bw -s SIZE -n %d -t %d -Q %d，再按教程结尾给出的那样加上 -R、-d 和 server 的地址。", measureLatencyOps, measureWindowOps, res.Depth, SignalEvery)}
	note = text.Text{EN: note.EN + same.EN, ZH: note.ZH + same.ZH}
	return Outcome{Results: results, Note: note, Measured: res}
}
