package steps

import (
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// stepSpan is when one step of this side ran (end is zero while it runs).
type stepSpan struct {
	id         StepID
	waits      bool // a step that waits (poll, get event) posts no work
	start, end time.Time
}

// causeOf names the step of this side a packet belongs to, "" when it was
// the peer's doing. A request this side sends (a WRITE, a SEND) comes from
// the last step that could post it — the NIC may send it after
// ibv_post_send returned, even while the next step (the poll) runs. Any
// other packet (a CM message, an ACK, anything received) belongs to the
// step running when it was seen, or, between steps, to the peer. Called
// with s.mu held.
func (s *Session) causeOf(p verbs.Packet) string {
	request := p.Outbound && p.CM == "" && p.Opcode != verbs.OpAcknowledge
	for i := len(s.spans) - 1; i >= 0; i-- {
		sp := s.spans[i]
		if p.Time.Before(sp.start) {
			continue
		}
		if request {
			if sp.waits {
				continue
			}
			return string(sp.id)
		}
		if sp.end.IsZero() || !p.Time.After(sp.end) {
			return string(sp.id)
		}
		return ""
	}
	return ""
}
