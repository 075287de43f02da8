package privdata

import (
	"fmt"
)

// A version-3 hello may end, after the edits section, with the sender's
// vote: what an attendee predicted for the room's question, and the name
// the room knows them by (so a revote lands next to their first vote).
// The edits section is then always written, empty if need be, so that
// the vote's place is known:
//
//	0  marker   u8  ('V')
//	1  flags    u8  (bit 0: the sender follows a room's plan: it asked
//	                for no tour or lesson of its own)
//	2  pick     u8  (the chosen answer, 1-based; 0 = no answer)
//	3  len      u8  (length of the name)
//	4  name     len bytes
//
// A version-2 reader stops after the edits and never sees it; zero
// padding after the edits reads as no vote.

// HelloVote is a peer's vote. Name holds bytes as they crossed: shown
// only through PeerBytes.
type HelloVote struct {
	// Pick is the 1-based answer; 0 for none.
	Pick int
	Name PeerBytes
	// Follows says the sender will start again with a room's plan when
	// the room turns it away with one (it chose no tour or lesson).
	Follows bool
}

const (
	voteMarker  = 'V'
	voteHeader  = 4
	voteFollows = 1 << 0
	// MaxVoteName is the longest name a vote carries; a longer one is
	// cut (a REQ's private data has 56 bytes for everything).
	MaxVoteName = 16
)

// VoteSize is how many bytes AppendHelloVote adds for name (after any
// cut): what the sender keeps free of edits.
func VoteSize(name string) int { return voteHeader + min(len(name), MaxVoteName) }

// AppendHelloVote appends the vote to hello (a marshalled hello, with its
// edits section if it has one; hasEdits says so), writing an empty edits
// section first when there is none, and makes it a version-3 hello. A
// pick outside 0..255 is refused.
func AppendHelloVote(hello []byte, hasEdits bool, v HelloVote) ([]byte, error) {
	if v.Pick < 0 || v.Pick > 255 {
		return nil, fmt.Errorf("pick %d: a vote carries 1 to 255 (0: none)", v.Pick)
	}
	if len(hello) < helloHeaderLen {
		return nil, fmt.Errorf("not a hello: %d bytes", len(hello))
	}
	name := []byte(v.Name)
	if len(name) > MaxVoteName {
		name = name[:MaxVoteName]
	}
	out := append([]byte(nil), hello...)
	out[4] = max(out[4], 3)
	if !hasEdits {
		out = append(out, 0, 0)
	}
	var flags byte
	if v.Follows {
		flags |= voteFollows
	}
	out = append(out, voteMarker, flags, byte(v.Pick), byte(len(name)))
	return append(out, name...), nil
}

// ParseHelloVote reads the vote of the hello at the start of p: found is
// false for no hello, a hello before version 3, or no vote after its
// edits. A vote that runs past p is a *HelloError.
func ParseHelloVote(p []byte) (v HelloVote, found bool, err error) {
	h, ok, err := ParseHello(p)
	if !ok || err != nil || h.Version < 3 {
		return HelloVote{}, false, err
	}
	rest, err := afterEdits(p[helloHeaderLen+len(h.Lesson):])
	if err != nil || len(rest) == 0 || rest[0] != voteMarker {
		return HelloVote{}, false, err
	}
	if len(rest) < voteHeader || len(rest) < voteHeader+int(rest[3]) {
		return HelloVote{}, true, &HelloError{fmt.Sprintf("the vote runs past the private data (%d bytes left)", len(rest))}
	}
	n := int(rest[3])
	return HelloVote{Follows: rest[1]&voteFollows != 0, Pick: int(rest[2]), Name: PeerBytes(append([]byte(nil), rest[voteHeader:voteHeader+n]...))}, true, nil
}

// afterEdits is what follows the edits section at the start of rest
// (nothing when there is none).
func afterEdits(rest []byte) ([]byte, error) {
	if len(rest) < helloEditsHeader {
		return nil, nil
	}
	count := int(rest[0])
	rest = rest[helloEditsHeader:]
	for i := 0; i < count; i++ {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return nil, &HelloError{fmt.Sprintf("edit %d of %d runs past the private data", i+1, count)}
		}
		rest = rest[1+int(rest[0]):]
	}
	return rest, nil
}
