package workshop

import (
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// A Session keeps its whole history (a snapshot per step, each byte's
// change time, every packet of its wire view): some 0.7 MB after a tour.
// A room that kept every attendee's Session grew by that much per
// attendee for as long as it ran (hostile review W6: heap 45 → 161 MB
// over 220 attendees). So an attendee that has left keeps its row, which
// is all the roster and the results need, and its Session only while it
// is among the last KeptSessions to leave: the workshop screen can still
// show a recent attendee's side of the connection, and memory stays
// bounded however many attendees come.

// KeptSessions is how many of the attendees that left last keep their
// Session for the workshop screen's detail panes.
const KeptSessions = 8

// retire ends the attendee's time in the room: what its atomics found
// goes into its row, its event queue is emptied and closed, and the
// Session of the attendee that left KeptSessions ago is let go.
func (r *Room) retire(a *Attendee, s *steps.Session) {
	if tour, _ := steps.TourOf(r.cfg.Tour); tour.SharedCounter {
		s.Sample(time.Now())
		found := s.Progress().Atomics
		a.mu.Lock()
		a.atomics = found
		a.mu.Unlock()
	}
	a.judge(s.Progress()) // its last step, or fail, sampled the wire
	a.mu.Lock()
	a.left = time.Now()
	a.mu.Unlock()
	a.events.Close(steps.ErrTourOver) // nothing more is routed to it
	a.events.Drain()
	r.mu.Lock()
	r.recent = append(r.recent, a)
	var forget *Attendee
	if len(r.recent) > KeptSessions {
		forget, r.recent = r.recent[0], r.recent[1:]
	}
	r.mu.Unlock()
	if forget != nil {
		forget.mu.Lock()
		forget.session = nil
		forget.mu.Unlock()
	}
}
