package privdata

import (
	"fmt"
)

// A version-2 hello may end with the sender's edits (the learner's own
// experiment, STEP.FIELD=VALUE), so that the other side's screen can say
// "the server changed reg-mr-data.access" when the consequence arrives.
// The section follows the hello's lesson name:
//
//	0  count    u8  (edits that follow)
//	1  omitted  u8  (edits the sender made that did not fit)
//	2  each edit: len u8, then len bytes
//
// It is only written when there are edits, so a hello without any is a
// version-1 hello but for its version byte, and a version-1 reader (which
// ignores what follows the name) and the seed programs (which read none
// of it) are not disturbed. Zero padding after a hello reads as no edits.

// HelloEdits are the edits a peer announced. List holds them as they
// crossed: bytes from the peer, to be shown only through PeerBytes.
type HelloEdits struct {
	List    []PeerBytes
	Omitted int
}

const helloEditsHeader = 2

// AppendHelloEdits appends the edits section to hello (a marshalled
// hello) with as many of edits as fit in room bytes in all; the rest are
// counted as omitted. With no edits, or no room even for the section's
// header, hello comes back as it was.
func AppendHelloEdits(hello []byte, edits []string, room int) []byte {
	if len(edits) == 0 || len(hello)+helloEditsHeader > room {
		return hello
	}
	return appendEditsSection(append([]byte(nil), hello...), edits, room)
}

// appendEditsSection appends the section (count, omitted, the edits that
// fit in room bytes in all) to out, which has room for its header.
func appendEditsSection(out []byte, edits []string, room int) []byte {
	countAt := len(out)
	out = append(out, 0, 0)
	n := 0
	for _, e := range edits {
		if len(e) == 0 || len(e) > 255 || len(out)+1+len(e) > room || n == 255 {
			continue
		}
		out = append(out, byte(len(e)))
		out = append(out, e...)
		n++
	}
	out[countAt] = byte(n)
	out[countAt+1] = byte(min(255, len(edits)-n))
	return out
}

// ParseHelloEdits reads the edits section of the hello at the start of
// p. No hello, a version-1 hello, or zero padding after it: no edits and
// no error. A section that claims more bytes than p holds is a
// *HelloError.
func ParseHelloEdits(p []byte) (HelloEdits, error) {
	h, found, err := ParseHello(p)
	if !found || err != nil || h.Version < 2 {
		return HelloEdits{}, err
	}
	rest := p[helloHeaderLen+len(h.Lesson):]
	if len(rest) < helloEditsHeader {
		return HelloEdits{}, nil
	}
	return parseEditsSection(rest)
}

// parseEditsSection reads a section that starts rest (at least its
// header long).
func parseEditsSection(rest []byte) (HelloEdits, error) {
	out := HelloEdits{Omitted: int(rest[1])}
	count := int(rest[0])
	rest = rest[helloEditsHeader:]
	for i := 0; i < count; i++ {
		if len(rest) < 1 || int(rest[0]) == 0 || len(rest) < 1+int(rest[0]) {
			return HelloEdits{}, &HelloError{fmt.Sprintf("edit %d of %d runs past the private data", i+1, count)}
		}
		n := int(rest[0])
		out.List = append(out.List, PeerBytes(append([]byte(nil), rest[1:1+n]...)))
		rest = rest[1+n:]
	}
	return out, nil
}
