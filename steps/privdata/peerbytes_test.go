package privdata_test

import (
	"fmt"
	"testing"

	"github.com/rdmatour/rdmatour/steps/privdata"
)

func TestEscapePeer(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "hello from rdmatour", "hello from rdmatour"},
		{"chinese", "你好，RDMA", "你好，RDMA"},
		{"clear screen and colour", "\x1b[2J\x1b[31mRED", `\e[2J\e[31mRED`},
		{"bell and backspace", "a\ab\bc", `a\ab\bc`},
		{"osc title", "\x1b]0;pwned\x07", `\e]0;pwned\a`},
		{"cr lf tab", "x\r\ny\tz", `x\r\ny\tz`},
		{"nul and del", "a\x00b\x7f", `a\x00b\x7f`},
		{"c1 csi", "a\u009b31mb", `a\x9b31mb`},
		{"bidi override", "abc\u202edcba", `abc\u202edcba`},
		{"invalid utf8", "a\xff\xfeb", `a\xff\xfeb`},
		{"truncated utf8", "\xe4\xbd", `\xe4\xbd`},
		{"backslash doubled", `C:\x1b`, `C:\\x1b`},
		{"zero width joiner", "a\u200db", `a\u200db`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := privdata.EscapePeer([]byte(tc.in)); got != tc.want {
				t.Errorf("privdata.EscapePeer(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := fmt.Sprint(privdata.PeerBytes(tc.in)); got != tc.want {
				t.Errorf("fmt.Sprint(privdata.PeerBytes(%q)) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzEscapePeer(f *testing.F) {
	f.Add([]byte("\x1b[2Jhi\a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		out := privdata.EscapePeer(b)
		for _, r := range out {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("privdata.EscapePeer(%q) = %q keeps control %U", b, out, r)
			}
		}
	})
}
