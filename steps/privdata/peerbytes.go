package privdata

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PeerBytes are bytes that came from the peer: buffer contents, SEND
// payloads, private data. A peer is not trusted with the learner's
// terminal, so the only way to turn them into text is String, which
// escapes everything that is not printable: control characters (ESC,
// BEL, CR, ...), C1 controls, bidirectional and other format characters,
// and invalid UTF-8. Printable text in any script, Chinese included,
// stays as it is. Backslashes are doubled so the escaping is unambiguous.
type PeerBytes []byte

// String returns the bytes as text safe to print on a terminal.
func (p PeerBytes) String() string { return EscapePeer(p) }

// EscapePeer returns b as text safe to print on a terminal (see PeerBytes).
func EscapePeer(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			sb.WriteString(`\x`)
			sb.WriteString(hex2(b[0]))
		case r == '\\':
			sb.WriteString(`\\`)
		case r == ' ' || (r != utf8.RuneError && unicode.IsPrint(r)):
			sb.WriteRune(r)
		default:
			sb.WriteString(escapeRune(r))
		}
		b = b[n:]
	}
	return sb.String()
}

// escapeRune writes a non-printable rune the way Go source would.
func escapeRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\t':
		return `\t`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case 0x1b:
		return `\e`
	}
	if r < 0x100 {
		return `\x` + hex2(byte(r))
	}
	q := strconv.QuoteRuneToASCII(r) // '\u202e'
	return q[1 : len(q)-1]
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}
