package workshop

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// A workshop room runs one tour for everyone (Config.Tour). The
// attendee's hello, in its connect request, says which tour it runs; one
// that runs another is turned away at once, the reason and the room's
// plan in the REJ (plan.go), rather than left to a tour whose two halves
// do not fit (a WRITE into a room that waits for atomics, say).

// checkRoomTour refuses the tours a room cannot serve (the catalogue
// says which and why: the ud tour's connections come on rdma_cm's UDP
// port space, and a room serves RC connections on one listener).
func checkRoomTour(kind steps.TourKind) error {
	tour, ok := steps.TourOf(kind)
	if !ok {
		return &steps.ConfigError{Reason: text.Same(fmt.Sprintf("unknown tour %d: use write, read or atomic for a workshop room", int(kind)))}
	}
	return tour.Workshop()
}
