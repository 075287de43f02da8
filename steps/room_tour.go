package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
)

// A workshop room runs one tour for everyone (RoomConfig.Tour). The
// attendee's hello, in its connect request, says which tour it runs; one
// that runs another is turned away at once, the reason in the REJ, rather
// than left to a tour whose two halves do not fit (a WRITE into a room
// that waits for atomics, say).

// TourMismatchReason is the start of the reason a room gives an attendee
// whose tour is not the room's.
const TourMismatchReason = "this workshop runs --tour "

// checkRoomTour refuses the tours a room cannot serve (the catalogue
// says which and why: the ud tour's connections come on rdma_cm's UDP
// port space, and a room serves RC connections on one listener).
func checkRoomTour(kind TourKind) error {
	tour, ok := TourOf(kind)
	if !ok {
		return configErrorf("unknown tour %d: use write, read or atomic for a workshop room", int(kind))
	}
	return tour.Workshop()
}

// tourMismatch is why the room turns the request ev away because its
// hello names another tour ("" when the tours agree). No hello, or one
// that cannot be read, counts as the write tour (the seed program's).
func (r *Room) tourMismatch(ev verbs.CMEvent) string {
	h, found, err := ParseHello(ev.PrivateData)
	if !found || err != nil {
		h = HelloFor(TourWrite, "")
	}
	if h.Tour == r.cfg.Tour {
		return ""
	}
	return fmt.Sprintf("%s%s, you ran %s: start again with --tour %s", TourMismatchReason, r.cfg.Tour, h.Flags(), r.cfg.Tour)
}
