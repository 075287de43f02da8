package termtext

import (
	"bytes"
	"strings"
	"testing"
)

// hostile is a --message with several kinds of terminal control: CSI
// clear screen and colour, BEL, an OSC window-title set, a C1 CSI
// (U+009B), a bidi override (U+202E), invalid UTF-8 and a bare CR.
const hostile = "\x1b[2J\x1b[31mRED\abell \x1b]0;pwned\x07 \u009b31m c1 \u202eevil\u202c \xff\xfe bad \rCR"

// rawControls lists what must never reach a terminal from a peer.
var rawControls = []string{"\x1b", "\a", "\u009b", "\u202e", "\u202c", "\xff", "\r"}

func TestTerminalGuard(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain text\n", "plain text\n"},
		{"中文说明\tand a tab\n", "中文说明\tand a tab\n"},
		{`already \e[2J escaped`, `already \e[2J escaped`}, // not escaped twice
		{"\x1b[2Jx\a", `\e[2Jx\a`},
		{"\u009b31m", `\x9b31m`},
		{"a\u202eb", `a\u202eb`},
		{"bad \xff\xfe", `bad \xff\xfe`},
		{"cr\rlf\n", `cr\rlf` + "\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		n, err := NewGuard(&b).Write([]byte(tt.in))
		if err != nil || n != len(tt.in) {
			t.Fatalf("Write(%q) = %d, %v", tt.in, n, err)
		}
		if b.String() != tt.want {
			t.Errorf("guard(%q) = %q, want %q", tt.in, b.String(), tt.want)
		}
	}
	var b bytes.Buffer
	NewGuard(&b).Write([]byte(hostile))
	for _, c := range rawControls {
		if strings.Contains(b.String(), c) {
			t.Errorf("%q passed the guard: %q", c, b.String())
		}
	}
}
