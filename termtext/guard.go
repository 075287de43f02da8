package termtext

import (
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/rdmatour/rdmatour/steps/privdata"
)

// Guard is the last line of defence between a peer and the
// learner's terminal in plain mode: every control character (ESC, BEL,
// CR, ...), C1 control, bidirectional or other format character and
// invalid UTF-8 byte that reaches it is written escaped, as
// privdata.EscapePeer writes it; newlines, tabs and printable text in any
// script pass unchanged. Peer bytes are escaped where they are printed
// (privdata.PeerBytes); the guard makes sure nothing that forgot to is ever
// interpreted by the terminal. Backslashes pass unchanged, so text that
// is already escaped is not escaped twice.
//
// Each Write must hold whole UTF-8 sequences, as fmt's one Write per
// call does.
type Guard struct{ w io.Writer }

// NewGuard returns w behind a Guard.
func NewGuard(w io.Writer) io.Writer { return Guard{w: w} }

// Write writes p to the guarded writer with everything a terminal would
// interpret escaped; it reports len(p) written when that write succeeds.
func (g Guard) Write(p []byte) (int, error) {
	if _, err := g.w.Write(guardTerminal(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// guardTerminal returns p with everything a terminal would interpret
// escaped (see Guard).
func guardTerminal(p []byte) []byte {
	if safeForTerminal(p) {
		return p
	}
	out := make([]byte, 0, len(p)+16)
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		if passes(r, n) {
			out = append(out, p[:n]...)
		} else {
			out = append(out, privdata.EscapePeer(p[:n])...)
		}
		p = p[n:]
	}
	return out
}

func safeForTerminal(p []byte) bool {
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		if !passes(r, n) {
			return false
		}
		p = p[n:]
	}
	return true
}

// passes says the rune r, n bytes long, may reach a terminal as it is.
func passes(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n <= 1:
		return false
	case r == '\n' || r == '\t' || r == ' ':
		return true
	}
	return unicode.IsPrint(r)
}
