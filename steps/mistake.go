package steps

import (
	"fmt"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs"
)

// Mistake is the typed hook through which a lesson changes what steps do:
// a step consults the session's Mistake at the one point the lesson
// touches, and never asks which lesson is running. The zero Mistake
// changes nothing (the plain tour).
type Mistake struct {
	// DataAccess, when non-zero, replaces the access flags the data
	// buffer is registered with (no-remote-write).
	DataAccess verbs.Access
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
}

// mistake is the hook of the session's lesson for this side.
func (s *Session) mistake() Mistake {
	if s.cfg.Lesson == "" {
		return Mistake{}
	}
	l, err := LessonByName(s.cfg.Lesson)
	if err != nil {
		return Mistake{}
	}
	if s.cfg.Role == Server {
		return l.server
	}
	return l.client
}

// The lessons' mistakes, one per lesson that makes one inside a step.
var (
	mistakeNoRemoteWrite = Mistake{DataAccess: verbs.AccessLocalWrite}

	// htonl keeps the low 32 bits of the address; stored in a
	// little-endian u64 they read back, through be64toh, as those bits
	// shifted up by 32.
	mistakeHtonlAddress = Mistake{Advertise: func(t Target) Target {
		t.AddrC = c.Call("htonl", c.Hex(uint64(uint32(t.Addr)), "(uintptr_t)buf"))
		t.Addr = uint64(uint32(t.Addr)) << 32
		t.Why = "the lesson's mistake: htonl on a 64-bit address"
		return t
	}}

	mistakeBadRKey = Mistake{Write: func(t Target, _ uint32, local verbs.MR, _ int) Target {
		key, expr := local.LKey(), "mr->lkey"
		if key == t.RKey {
			// Both sides' data MR can have the same index, and the key's
			// low byte is random: 1 time in 256 the client's own key is the
			// server's. Change the low byte so the mistake stays a mistake.
			key, expr = key^0xff, "mr->lkey ^ 0xff"
		}
		t.Why = fmt.Sprintf("the lesson's mistake: rkey = %s (0x%x), not the server's rkey 0x%x", expr, key, t.RKey)
		t.RKey, t.RKeyC = key, c.Hex(uint64(key), expr)
		return t
	}}

	// out-of-bounds starts 8 bytes before the end; a message of 8 bytes
	// or less (with its NUL) would still fit there, so it starts closer,
	// always leaving at least one byte past the end.
	mistakeOutOfBounds = Mistake{Write: func(t Target, size uint32, _ verbs.MR, n int) Target {
		back := min(8, max(n-1, 0))
		t.Why = fmt.Sprintf("the lesson's mistake: remote_addr = addr + size - %d, then %d bytes", back, n)
		t.Addr += uint64(size) - uint64(back)
		t.AddrC = c.Hex(t.Addr, fmt.Sprintf("remote_addr + size - %d", back))
		return t
	}}
)
