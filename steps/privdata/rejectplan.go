package privdata

import "bytes"

// A workshop room that turns an attendee away because they run another
// tour or lesson says what the room runs twice in the REJ's private data:
// as words for the person (the reason, as every REJ of rdmatour's), and,
// after a NUL, as a hello, so that a client that asked for nothing in
// particular can start again with the room's plan. A client that reads
// only the words (an older rdmatour, the seed) stops at the NUL.
//
//	reason bytes, NUL, hello

// RejectWithPlan is the REJ's private data: reason, then the plan's
// hello when it fits in room bytes (only the reason when not).
func RejectWithPlan(reason string, plan []byte, room int) []byte {
	out := []byte(reason)
	if len(out)+1+len(plan) > room {
		if len(out) > room {
			out = out[:room]
		}
		return out
	}
	out = append(out, 0)
	return append(out, plan...)
}

// SplitReject reads a REJ's private data: the reason (up to the first
// NUL) and what follows it, where a room puts its plan's hello (read it
// with ParseHello: zero padding is no hello).
func SplitReject(p []byte) (reason, plan []byte) {
	i := bytes.IndexByte(p, 0)
	if i < 0 {
		return p, nil
	}
	return p[:i], p[i+1:]
}
