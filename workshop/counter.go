package workshop

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// In an atomic workshop room (--workshop --tour atomic) the counter is
// the room's, not each attendee's: one 8-byte counter in one MR on the
// room's shared PD, whose addr and rkey every attendee's accept hands out. Each
// attendee's FETCH_AND_ADD and CMP_AND_SWP then land on the same 8
// bytes, and the server's NIC serialises them: every FETCH_AND_ADD gets
// an old value of its own, and a CMP_AND_SWP fails when another attendee
// changed the counter since its FETCH_AND_ADD. An MR belongs to one PD,
// so a room that listens on two backends has one counter per backend.
//
// Why the attendees' QPs share the counter's PD: a responder serves an
// rkey only for an MR in the PD of the QP the request arrived on (rxe:
// rxe_mr.c lookup_mr; the sim: checkRange), else remote access error. A
// memory window does not cross that line: it is allocated in one PD and
// binds only an MR of that PD (a type 2 window, moreover, to one QP of
// it). A second QP per attendee would be a second connection, which the
// seed's wire format does not have. Registering the counter's memory once
// more in each attendee's own PD would work on a real device (one page,
// one MR per PD; the HCA keeps atomics on one address atomic whichever MR
// names it), but verbs.PD.RegMR registers memory it allocates itself. So
// the QPs share this PD, and the counter is the only MR in it with a
// remote right: each attendee's own buffers here are LOCAL_WRITE only
// (steps' reg-mr-data), so a guessed rkey in this PD reaches nothing but
// the counter every attendee is handed anyway.

// counterAccess is the shared counter's access: atomics need LOCAL_WRITE
// with REMOTE_ATOMIC (ibv_reg_mr(3)); nobody READs or WRITEs it.
const counterAccess = verbs.AccessLocalWrite | verbs.AccessRemoteAtomic

// counterSize is the counter: one uint64.
const counterSize = 8

// BackendCounter is one backend's shared counter, as the roster shows it.
type BackendCounter struct {
	Backend string
	Value   uint64
	Err     string // the counter could not be read
}

// roomCounter is the room's counter on one device.
type roomCounter struct {
	backend string
	mr      verbs.MR
}

// newRoomCounter registers the counter on pd and sets it to steps.CounterStart.
func newRoomCounter(backend string, pd verbs.PD) (*roomCounter, error) {
	mr, err := pd.RegMR(counterSize, counterAccess)
	if err != nil {
		return nil, fmt.Errorf("registering the room's shared counter: %w", err)
	}
	if err := mr.Write(0, binary.LittleEndian.AppendUint64(nil, steps.CounterStart)); err != nil {
		mr.Dereg()
		return nil, fmt.Errorf("setting the room's shared counter: %w", err)
	}
	return &roomCounter{backend: backend, mr: mr}, nil
}

// value reads the counter as the server's CPU sees it.
func (c *roomCounter) value() (uint64, error) {
	b, err := c.mr.Read(0, counterSize)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// counterFor is the atomic room's counter on dev, registered on pd (the
// shared PD) the first time an attendee arrives there. The caller holds
// r.mu.
func (r *Room) counterFor(dev verbs.Device, backend string, pd verbs.PD) (*roomCounter, error) {
	if c := r.counters[dev]; c != nil {
		return c, nil
	}
	c, err := newRoomCounter(backend, pd)
	if err != nil {
		return nil, err
	}
	r.counters[dev] = c
	r.baseline++
	return c, nil
}

// Counters reads every backend's shared counter (none when the room does
// not run the atomic tour, or before its first attendee); once the room
// is closed, their values as it closed.
func (r *Room) Counters() []BackendCounter {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finalCounters != nil {
		return append([]BackendCounter(nil), r.finalCounters...)
	}
	var out []BackendCounter
	for _, c := range r.counters {
		bc := BackendCounter{Backend: c.backend}
		v, err := c.value()
		if err != nil {
			bc.Err = err.Error()
		}
		bc.Value = v
		out = append(out, bc)
	}
	// Map order is random; the header must not jump about.
	sort.Slice(out, func(i, j int) bool { return out[i].Backend < out[j].Backend })
	return out
}

// CounterLine is the counters in a few words ("" when there are none):
// "counter 46" for one backend, "counter rdma 44 · sim 46" for two.
func CounterLine(cs []BackendCounter) string {
	if len(cs) == 0 {
		return ""
	}
	var parts []string
	for _, c := range cs {
		v := fmt.Sprint(c.Value)
		if c.Err != "" {
			v = "? (" + c.Err + ")"
		}
		if len(cs) > 1 {
			v = c.Backend + " " + v
		}
		parts = append(parts, v)
	}
	return "counter " + strings.Join(parts, " · ")
}
