package workshop

import (
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// The roster: every attendee's row, and the header's counts.

// Attendees lists everyone who came, in order of arrival.
func (r *Room) Attendees() []*Attendee {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Attendee(nil), r.attendees...)
}

// Roster copies every attendee's row.
func (r *Room) Roster() []Row {
	as := r.Attendees()
	rows := make([]Row, len(as))
	tour, _ := steps.TourOf(r.cfg.Tour)
	shared := tour.SharedCounter
	now := time.Now()
	for i, a := range as {
		rows[i] = a.Row()
		r.mu.Lock()
		rows[i].Votes.First, rows[i].Votes.Second = r.votes.of(rows[i].Votes.Lesson, rows[i].Votes.Name)
		r.mu.Unlock()
		rows[i].Stuck = rows[i].Phase.InRoom() && now.Sub(rows[i].Last) > r.stuckAfter()
		if s := a.Session(); s != nil && shared && rows[i].Phase.InRoom() {
			s.Sample(time.Now()) // the atomics that came in since its last step
			rows[i].Atomics = s.Progress().Atomics
		}
	}
	return rows
}

// Counts are the roster header's numbers.
type Counts struct {
	// Connected is everyone still in the room; Stuck those of them
	// waiting longer than the room's StuckAfter.
	Connected, Stuck, Finished, Failed, TurnedAway int
	// Counters are the atomic room's shared counters, read now (none in
	// a write or read room).
	Counters []BackendCounter
	// SRQ is the --srq room's shared receive queues' fill levels, read
	// now (none without --srq).
	SRQ []SRQLevel
}

// Counts counts the roster: connected is everyone still in the room.
func (r *Room) Counts() Counts {
	var c Counts
	for _, row := range r.Roster() {
		switch {
		case row.Phase.InRoom():
			c.Connected++
			if row.Stuck {
				c.Stuck++
			}
		case row.Phase == PhaseFinished:
			c.Finished++
		case row.Phase == PhaseFailed, row.Phase == PhaseDropped:
			c.Failed++
		}
	}
	r.mu.Lock()
	c.TurnedAway = r.turned
	r.mu.Unlock()
	c.Counters = r.Counters()
	c.SRQ = r.SRQLevels()
	return c
}
