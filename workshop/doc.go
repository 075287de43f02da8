// Package workshop is the workshop server (`rdmatour server --workshop`):
// a Room that listens on every backend it is given and serves every
// attendee at once, each with a server Session of its own, plus what the
// room keeps of them (attendees, roster rows, the counts), the atomic
// room's one shared counter and the check that an attendee runs the
// room's tour.
//
// It drives its Sessions only as a host: through steps.Host, NewHosted,
// Progress and the rest of the steps package's exported API; it touches
// no private Session field. It may import steps, steps/privdata, verbs
// and text, and never tui, plain, record, export or a backend (verbs/sim,
// verbs/rdma): the caller hands it its providers, and the TUI and plain
// mode render its rows.
package workshop
