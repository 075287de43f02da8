package steps

import "time"

// When each byte of the data buffer last changed, as runs: the tour
// writes a message or two into it, so a handful of runs say what 4096
// timestamps said (24 bytes each: 96 KiB per buffer, the most of an
// attendee's memory in a workshop room before this). A run list is
// never changed in place: a change makes a new one, so snapshots share
// it.

// ChangeRun is bytes [Off, Off+N) of a buffer, last changed At.
type ChangeRun struct {
	Off, N int
	At     time.Time
}

// ChangedAt is when byte i last changed (zero: never since the session
// started).
func (b BufferState) ChangedAt(i int) time.Time {
	for _, r := range b.Changes {
		if i >= r.Off && i < r.Off+r.N {
			return r.At
		}
	}
	return time.Time{}
}

// LastChange is when any byte last changed (zero: none has).
func (b BufferState) LastChange() time.Time {
	var last time.Time
	for _, r := range b.Changes {
		if r.At.After(last) {
			last = r.At
		}
	}
	return last
}

// SameChanges says two buffers' bytes changed at the same times.
func (b BufferState) SameChanges(o BufferState) bool {
	if len(b.Changes) != len(o.Changes) {
		return false
	}
	for i, r := range b.Changes {
		q := o.Changes[i]
		if r.Off != q.Off || r.N != q.N || !r.At.Equal(q.At) {
			return false
		}
	}
	return true
}

// overlay is runs with [off, off+n) changed at at: a new list, sorted by
// offset, the new run replacing what it covers.
func overlay(runs []ChangeRun, off, n int, at time.Time) []ChangeRun {
	out := make([]ChangeRun, 0, len(runs)+2)
	end := off + n
	placed := false
	for _, r := range runs {
		rEnd := r.Off + r.N
		if rEnd <= off || r.Off >= end { // untouched
			if !placed && r.Off >= end {
				out, placed = append(out, ChangeRun{Off: off, N: n, At: at}), true
			}
			out = append(out, r)
			continue
		}
		if r.Off < off { // the part before
			out = append(out, ChangeRun{Off: r.Off, N: off - r.Off, At: r.At})
		}
		if !placed {
			out, placed = append(out, ChangeRun{Off: off, N: n, At: at}), true
		}
		if rEnd > end { // the part after
			out = append(out, ChangeRun{Off: end, N: rEnd - end, At: r.At})
		}
	}
	if !placed {
		out = append(out, ChangeRun{Off: off, N: n, At: at})
	}
	return out
}
