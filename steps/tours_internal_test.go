package steps

import "testing"

// Every tour's steps mark the milestones that code outside the tables
// reads (the roster, export-c, the snapshot's Listening): a new tour that
// forgets one fails here rather than leaving the roster blank.
func TestEveryTourMarksItsMilestones(t *testing.T) {
	need := map[Role][]Milestone{
		Server: {MilestoneListening, MilestoneRequested, MilestoneLanded, MilestoneDone},
		Client: {MilestoneConnected, MilestoneDone},
	}
	rc := map[Role][]Milestone{ // and the RC tours' handshake and hang-up
		Server: {MilestoneConnected, MilestoneDisconnected, MilestoneHandshakeWait},
		Client: {MilestoneDisconnected, MilestoneHandshakeWait},
	}
	for _, d := range Tours() {
		for _, role := range []Role{Server, Client} {
			want := need[role]
			if d.Workshop() == nil { // an RC tour a room can host
				want = append(want, rc[role]...)
			}
			tour := d.build(role, NotifySend, TrackCM)
			for _, m := range want {
				n := 0
				for _, st := range tour {
					if st.Reaches(m) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%s tour, %s: %d steps reach milestone %#x, want 1", d.Name, role, n, m)
				}
			}
		}
	}
}

// The catalogue is in TourKind order, every row named and buildable.
func TestTourCatalogue(t *testing.T) {
	for i, d := range Tours() {
		if d.Kind != TourKind(i) || d.Name == "" || d.build == nil {
			t.Errorf("row %d: kind %d, name %q, build set %v", i, d.Kind, d.Name, d.build != nil)
		}
		if k, err := ParseTourKind(d.Name); err != nil || k != d.Kind {
			t.Errorf("ParseTourKind(%q) = %v, %v", d.Name, k, err)
		}
	}
	if len(Tours()) != int(tourKinds) {
		t.Errorf("%d rows for %d kinds", len(Tours()), tourKinds)
	}
}
