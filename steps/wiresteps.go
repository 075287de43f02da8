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
// other packet (a CM message, a response: an ACK, READ data, an atomic's
// acknowledgement; anything received) belongs to the
// step running when it was seen, or, between steps, to the peer. Called
// with s.mu held.
func (s *Session) causeOf(p verbs.Packet) string {
	request := isRequest(p)
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

// isResponse: an RC packet a responder's NIC sends by itself, answering
// the peer's request (an ACK or NAK, READ response data, an atomic's
// acknowledgement). It belongs to the step running when it is seen, or
// to the peer's request that asked for it: never to the last step of
// this side that posted work (the server's accept, in the read and
// atomic tours).
func isResponse(opcode uint8) bool {
	return opcode >= verbs.OpRDMAReadRespFirst && opcode <= verbs.OpAtomicAcknowledge
}
