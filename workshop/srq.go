package workshop

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// With --srq the room's server side posts its RECVs to one shared
// receive queue per device, which every attendee's QP is created with
// (steps.SRQHost): RECVs sized for the room, not max_recv_wr per
// attendee. Each attendee's SEND (or WRITE_WITH_IMM) takes the RECV at
// the SRQ's head; when fewer than the limit remain, the device raises
// IBV_EVENT_SRQ_LIMIT_REACHED, once, and the room posts the SRQ full
// again and re-arms the limit: the real low-water-mark pattern.
//
// The PD: a RECV's buffer answers to the PD of the QP the SEND came on,
// not to the SRQ's (rxe's send_data_in: copy_data(qp->pd, ...); measured
// by TestRxeSRQ in verbs/rdmacore; the sim does the same). The room's
// RECV buffers are one MR, so every attendee's QP must be in its PD: an
// SRQ room shares one PD, as the atomic room does. There, unlike in the
// atomic room, each attendee's buffer keeps REMOTE_WRITE (the write tour
// needs it), so an attendee who learns or guesses another's rkey (an
// index and 8 random bits) can RDMA WRITE into their buffer. Servers
// that use SRQs accept it because their clients never write server
// memory: the clients only SEND requests into the SRQ, and the server
// does the RDMA itself (an NVMe-oF target READs and WRITEs the host's
// buffers; its own MRs have no remote rights), or every client is the
// same trusted job. SRQPDWarning says so on the roster.

// srqSlot is one RECV buffer's size: the seed's recv_buf.
const srqSlot = steps.MsgBufSize

// SRQPDWarning is what the roster says under an SRQ room's fill level.
var SRQPDWarning = text.Text{
	EN: "one PD for all: a RECV's buffer answers to its QP's PD, so every QP shares the SRQ buffers' PD, and an attendee who guesses another's rkey can WRITE their buffer; real SRQ servers accept that because clients only SEND and the server does the RDMA",
	ZH: "所有人共用一个 PD：RECV 的 buffer 按它所在 QP 的 PD 检查，所以每个 QP 都和 SRQ 的 buffer 同在一个 PD 里；猜中别人 rkey 的学员就能 WRITE 别人的 buffer。真实的 SRQ 服务器接受这一点，因为客户端只 SEND，RDMA 读写由服务器自己发起",
}

// roomSRQ is the room's SRQ on one device and its RECV buffers.
type roomSRQ struct {
	backend string
	srq     verbs.SRQ
	buf     verbs.MR // ring slots of srqSlot bytes, one per RECV in flight
	depth   int      // RECVs the room keeps posted
	limit   int      // the low-water mark it arms

	mu      sync.Mutex
	posted  int // RECVs posted so far (the next one's wr_id)
	taken   int // RECVs attendees' SENDs took (their notifications)
	seen    int // limit events handled
	refills int
	err     string // the last refill's error
}

// SRQLevel is one backend's SRQ as the roster shows it.
type SRQLevel struct {
	Backend                      string
	Posted, Depth, Limit, Events int
	Err                          string
}

// newRoomSRQ creates the SRQ on pd for depth RECVs, posts them and arms
// the limit at a quarter of them.
func newRoomSRQ(backend string, pd verbs.PD, depth int) (*roomSRQ, error) {
	srq, err := pd.CreateSRQ(verbs.SRQAttr{MaxWR: uint32(depth), MaxSGE: 1})
	if err != nil {
		return nil, err
	}
	buf, err := pd.RegMR(2*depth*srqSlot, verbs.AccessLocalWrite)
	if err != nil {
		srq.Destroy()
		return nil, err
	}
	s := &roomSRQ{backend: backend, srq: srq, buf: buf, depth: depth, limit: max(depth/4, 1)}
	if err := s.fill(); err != nil {
		s.destroy()
		return nil, err
	}
	return s, nil
}

// fill posts RECVs until depth are in the SRQ, then arms the limit.
// Slots go round a ring of twice the depth: a slot is posted again only
// after depth other RECVs, long after its SEND's bytes were read.
func (s *roomSRQ) fill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.posted-s.taken < s.depth {
		slot := s.posted % (2 * s.depth)
		wr := verbs.RecvWR{WRID: uint64(s.posted), SGList: []verbs.SGE{{Addr: s.buf.Addr() + uint64(slot*srqSlot), Length: srqSlot, LKey: s.buf.LKey()}}}
		if err := s.srq.PostRecv(wr); err != nil {
			return err
		}
		s.posted++
	}
	return s.srq.Arm(uint32(s.limit))
}

// read is steps.SharedRecv.Read: the bytes of the RECV posted as wrID.
func (s *roomSRQ) read(wrID uint64, n int) ([]byte, error) {
	slot := int(wrID % uint64(2*s.depth))
	return s.buf.Read(slot*srqSlot, min(n, srqSlot))
}

// took counts a RECV an attendee's QP took and, once the limit event
// has come, fills the SRQ again. An error is the room's: it goes on the
// SRQ's line (a later fill may succeed).
func (s *roomSRQ) took(uint64) {
	if err := s.tookErr(); err != nil {
		s.mu.Lock()
		s.err = err.Error()
		s.mu.Unlock()
	}
}

func (s *roomSRQ) tookErr() error {
	s.mu.Lock()
	s.taken++
	s.mu.Unlock()
	events, err := s.srq.LimitEvents()
	if err != nil {
		return err
	}
	s.mu.Lock()
	refill := events > s.seen
	s.seen = events
	s.mu.Unlock()
	if !refill {
		return nil
	}
	s.mu.Lock()
	s.refills++
	s.mu.Unlock()
	return s.fill()
}

func (s *roomSRQ) level() SRQLevel {
	events, err := s.srq.LimitEvents()
	s.mu.Lock()
	defer s.mu.Unlock()
	l := SRQLevel{Backend: s.backend, Posted: s.posted - s.taken, Depth: s.depth, Limit: s.limit, Events: events}
	switch {
	case err != nil:
		l.Err = err.Error()
	case s.err != "":
		l.Err = s.err
	}
	return l
}

func (s *roomSRQ) destroy() error {
	err := s.srq.Destroy() // before its buffers' MR: nothing may land in them after
	if e := s.buf.Dereg(); err == nil {
		err = e
	}
	return err
}

// SRQLine is the roster header's SRQ line ("" without an SRQ): each
// backend's fill level, low-water mark and limit events.
func SRQLine(ls []SRQLevel) string {
	if len(ls) == 0 {
		return ""
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].Backend < ls[j].Backend })
	var parts []string
	for _, l := range ls {
		p := fmt.Sprintf("%s %d/%d RECVs posted, limit %d, %d limit event(s)", l.Backend, l.Posted, l.Depth, l.Limit, l.Events)
		if l.Err != "" {
			p += " (" + l.Err + ")"
		}
		parts = append(parts, p)
	}
	return "SRQ " + strings.Join(parts, " · ")
}

// shared is the SRQ as an attendee's Session takes it.
func (s *roomSRQ) shared() *steps.SharedRecv {
	return &steps.SharedRecv{SRQ: s.srq, Read: s.read, Took: s.took}
}

// srqFor is the room's SRQ on dev, made on pd (the room's shared PD
// there) the first time an attendee arrives on dev; nil without --srq.
// It raises the room's baseline: the SRQ and its buffers' MR.
func (r *Room) srqFor(dev verbs.Device, backend string, pd verbs.PD) (*roomSRQ, error) {
	if !r.cfg.SRQ {
		return nil, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.srqs[dev]; s != nil {
		return s, nil
	}
	s, err := newRoomSRQ(backend, pd, r.cfg.MaxAttendees)
	if err != nil {
		return nil, fmt.Errorf("the room's SRQ: %w", err)
	}
	r.srqs[dev] = s
	r.baseline += 2
	return s, nil
}

// SRQLevels are the room's SRQs' fill levels, read now (none without
// --srq, or before the first attendee).
func (r *Room) SRQLevels() []SRQLevel {
	r.mu.Lock()
	if r.closed && len(r.srqs) == 0 {
		defer r.mu.Unlock()
		return append([]SRQLevel(nil), r.finalSRQ...)
	}
	srqs := make([]*roomSRQ, 0, len(r.srqs))
	for _, s := range r.srqs {
		srqs = append(srqs, s)
	}
	r.mu.Unlock()
	var out []SRQLevel
	for _, s := range srqs {
		out = append(out, s.level())
	}
	return out
}

// closeSRQs destroys the SRQs, once every attendee's QP is gone and
// before the PD their buffers are in. Called with r.mu held.
func (r *Room) closeSRQs() []error {
	var errs []error
	for dev, s := range r.srqs {
		errs = append(errs, s.destroy())
		delete(r.srqs, dev)
	}
	return errs
}

// checkRoomSRQ: an SRQ room runs the write tour, where the attendee's
// SEND is what takes a RECV (the read and atomic tours' servers post
// none for the room to share).
func checkRoomSRQ(cfg Config) error {
	if cfg.SRQ && cfg.Tour != steps.TourWrite {
		return &steps.ConfigError{Reason: text.Text{EN: fmt.Sprintf("--srq runs the write tour, not --tour %s: the attendees' SENDs are what the shared receive queue takes", cfg.Tour),
			ZH: fmt.Sprintf("--srq 只跑 write 教程，不能配 --tour %s：共享接收队列接的是学员的 SEND", cfg.Tour)}}
	}
	return nil
}
