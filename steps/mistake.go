package steps

import (
	"net/netip"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Mistake is the typed hook through which a lesson changes what steps do:
// a step consults the session's Mistake at the one point the lesson
// touches, and never asks which lesson is running. The zero Mistake
// changes nothing (the plain tour).
type Mistake struct {
	// Advertise, when set, changes the buffer address the server puts in
	// remote_info (htonl-address).
	Advertise func(Target) Target
	// Write, when set, changes where the client's RDMA WRITE goes
	// (bad-rkey, out-of-bounds): t is the server's buffer as remote_info
	// gave it, size its length, local the client's data MR, n the number
	// of bytes written.
	Write func(t Target, size uint32, local verbs.MR, n int) Target
	// ZeroInitiatorDepth makes rdma_connect ask for initiator_depth 0
	// (read-depth-zero).
	ZeroInitiatorDepth bool
	// AtomicOffset is added to the FETCH_AND_ADD's remote address
	// (atomic-unaligned).
	AtomicOffset uint64
	// Resolve, when set, is the address rdma_resolve_addr is given in
	// place of the server's (no-such-address), found among the host's
	// addresses and the provider's devices. When none fits it gives the
	// server's back, with a note saying why and what to do.
	Resolve func(p verbs.Provider, server netip.AddrPort) (netip.AddrPort, text.Text)
}

// Target is a remote address and rkey, each with its C expression (the
// value on screen, the program's computation in export-c), so the printed
// C shows the mistake as code rather than only as a number.
type Target struct {
	Addr  uint64
	AddrC c.Expr
	RKey  uint32
	RKeyC c.Expr
	// CompareAddC and SwapC are wr.atomic's operands (atomics only).
	CompareAddC, SwapC c.Expr
	// Why is a comment saying what the lesson changed ("" for none).
	Why string
	// you marks the work request's fields the learner edited (nil: the
	// tour's own WR); the printer shows their "was".
	you youWas
}

// mistake is the hook of the session's lesson for this side.
func (s *Session) mistake() Mistake {
	if s.cfg.Lesson == nil {
		return Mistake{}
	}
	return s.cfg.Lesson.mistakeOf(s.cfg.Role)
}

// remoteBuffer is the peer's data buffer as its remote_info named it:
// the info, and the WR's target with remote_addr and rkey as C names (no
// mistake or edit applied). The peer's remote_info must have come.
func (s *Session) remoteBuffer() (privdata.RemoteInfo, Target) {
	s.mu.Lock()
	info := s.remote.Info
	s.mu.Unlock()
	return info, Target{Addr: info.Addr, AddrC: c.Hex(info.Addr, "remote_addr"), RKey: info.RKey, RKeyC: c.Hex(uint64(info.RKey), "rkey")}
}
