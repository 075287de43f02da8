package steps

// Milestone is what a step reaches when it succeeds, for code outside the
// step tables that needs to know how far a tour got: the workshop's
// roster, the wait notes, export-c and the wire view. They read a
// step's milestones instead of its ID, so a renamed step, or a new tour
// whose steps have new IDs, keeps them working: the tour file marks its
// own steps.
type Milestone uint16

// The milestones; a step may reach several (a set of bits).
const (
	// MilestoneListening: rdma_listen succeeded, a client may connect
	// (the snapshot's Listening; export-c starts the client here).
	MilestoneListening Milestone = 1 << iota
	// MilestoneRequested: the server has the client's connect request
	// (a workshop room's listener does everything up to here).
	MilestoneRequested
	// MilestoneHandshakeWait: the step waits inside the CM handshake, so
	// the CM's REQ/REP retry timers run behind it (the wait notes say
	// so).
	MilestoneHandshakeWait
	// MilestoneConnected: the connection is established on this side.
	MilestoneConnected
	// MilestoneLanded: the tour's data exchange is over on the server:
	// the client's data landed (write), was fetched (read) or the atomics
	// ran on the counter (atomic).
	MilestoneLanded
	// MilestoneNotified: the server was told the data is there.
	MilestoneNotified
	// MilestoneDisconnected: this side's rdma_disconnect.
	MilestoneDisconnected
	// MilestoneDone: everything released, the tour is over.
	MilestoneDone
)

// Reaches reports whether the step reaches m.
func (st Step) Reaches(m Milestone) bool { return st.Milestones&m != 0 }

// reached reports whether the step of this tour that reaches m has run
// and succeeded.
func reached(tour []Step, states []RunState, m Milestone) bool {
	for i, st := range tour {
		if st.Reaches(m) && i < len(states) && states[i] == Succeeded {
			return true
		}
	}
	return false
}
