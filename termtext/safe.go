package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rdmatour/rdmatour/steps/privdata"
)

// Safe makes text from the steps package safe for the terminal. The
// steps escape the peer's bytes where they enter (privdata.PeerBytes): the
// call's results and the timeline arrive escaped, and escaping them again
// would double every backslash. This is the net under that: any control,
// format or invalid byte still left is escaped as privdata.EscapePeer does,
// and everything else, backslashes included, is left as it is.
func Safe(s string) string {
	safe := true
	for _, r := range s {
		if !Printable(r) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if Printable(r) {
			b.WriteRune(r)
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		b.WriteString(privdata.EscapePeer([]byte(s[i : i+n])))
	}
	return b.String()
}

// Printable says r is shown as it is (invalid UTF-8 decodes as RuneError).
func Printable(r rune) bool {
	return r == ' ' || (r != utf8.RuneError && unicode.IsPrint(r))
}
