package workshop

// What the room holds: every backend's live verbs objects, against the
// room's own with nobody in it.

// Live is the number of verbs objects alive on every backend; Baseline is
// what it is with nobody in the room (listeners, channels, the shared
// PDs). Once every attendee has left, Live() == Baseline().
func (r *Room) Live() int { return r.liveNow() }

// Baseline: see Live.
func (r *Room) Baseline() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.baseline
}

func (r *Room) liveNow() int {
	n := 0
	for _, p := range r.cfg.Providers {
		n += p.Live().Total()
	}
	return n
}
