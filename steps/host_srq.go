package steps

import (
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// A workshop room with a shared receive queue (`server --workshop
// --srq`): every attendee's QP is created with the room's SRQ
// (init_attr.srq), the room posts the RECVs to it with
// ibv_post_srq_recv, once for all, and an attendee's SEND lands in
// whichever of them is at its head. So a hosted Session with an SRQ
// skips its post-recv step (the step is srqShared) and reads the
// notification from the room's buffer the completion's wr_id names.

// SharedRecv is a room's SRQ as a hosted Session uses it.
type SharedRecv struct {
	SRQ verbs.SRQ
	// Read is n bytes of the buffer of the RECV the room posted as wrID
	// (the completion's wr_id).
	Read func(wrID uint64, n int) ([]byte, error)
	// Took is told of every completion of a RECV the Session's QP took
	// from the SRQ (the room counts its fill level and refills it).
	Took func(wrID uint64)
}

// SRQHost is a Host whose Sessions take their RECVs from its SRQ. A Host
// that is not one (or returns nil) gives each Session a receive queue of
// its own.
type SRQHost interface {
	Host
	SharedRecv() *SharedRecv
}

// sharedRecvOf is h's SRQ, nil when it has none.
func sharedRecvOf(h Host) *SharedRecv {
	if sh, ok := h.(SRQHost); ok {
		return sh.SharedRecv()
	}
	return nil
}

// withoutSRQShared drops the steps the room does for everyone when it
// has an SRQ.
func withoutSRQShared(tour []Step) []Step {
	var out []Step
	for _, st := range tour {
		if !st.srqShared {
			out = append(out, st)
		}
	}
	return out
}

// tookSRQ tells the room a RECV of its SRQ completed here.
func (s *Session) tookSRQ(wc verbs.WC) {
	if s.srq != nil && s.srq.Took != nil {
		s.srq.Took(wc.WRID)
	}
}

// readNotice reads the SEND's bytes: from this side's recv_buf, or, in a
// room with an SRQ, from the room's buffer the RECV named by wrID used.
func (s *Session) readNotice(wrID uint64) ([]byte, error) {
	if s.srq != nil {
		return s.srq.Read(wrID, MsgBufSize)
	}
	return s.mrRecv.Read(0, MsgBufSize)
}

// srqNote is what an attendee's create-qp says in a room with an SRQ.
var srqNote = text.Text{EN: "This is a workshop room with a shared receive queue: init_attr.srq is the room's SRQ, so this QP has no receive queue of its own. The room posted the RECVs once, with ibv_post_srq_recv, for every attendee; a SEND takes whichever RECV is at the SRQ's head.",
	ZH: "这是带共享接收队列（SRQ）的 workshop 教室：init_attr.srq 是教室的 SRQ，所以这个 QP 没有自己的接收队列。教室用 ibv_post_srq_recv 一次性为所有学员 post 了 RECV；哪个 SEND 先到，就用 SRQ 队头的那个 RECV。"}
