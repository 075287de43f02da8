package workshop

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// A workshop room runs one tour for everyone (Config.Tour). The
// attendee's hello, in its connect request, says which tour it runs; one
// that runs another is turned away at once, the reason in the REJ, rather
// than left to a tour whose two halves do not fit (a WRITE into a room
// that waits for atomics, say).

// checkRoomTour refuses the tours a room cannot serve (the catalogue
// says which and why: the ud tour's connections come on rdma_cm's UDP
// port space, and a room serves RC connections on one listener).
func checkRoomTour(kind steps.TourKind) error {
	tour, ok := steps.TourOf(kind)
	if !ok {
		return &steps.ConfigError{Reason: fmt.Sprintf("unknown tour %d: use write, read or atomic for a workshop room", int(kind))}
	}
	return tour.Workshop()
}

// tourMismatch is why the room turns the request ev away because its
// hello names another tour ("" when the tours agree). No hello, or one
// that cannot be read, counts as the write tour (the seed program's).
func (r *Room) tourMismatch(ev verbs.CMEvent) string {
	h, found, err := steps.ParseHello(ev.PrivateData)
	if !found || err != nil {
		h = steps.HelloFor(steps.TourWrite, "")
	}
	if h.Tour == r.cfg.Tour {
		return ""
	}
	return fmt.Sprintf("%s%s, you ran %s: start again with --tour %s", steps.TourMismatchReason, r.cfg.Tour, h.Flags(), r.cfg.Tour)
}
