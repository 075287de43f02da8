package steps

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
)

// An attendee's name (--name) travels in the client's hello so that the
// workshop's roster and results say who each row is, instead of an
// address and port. The server shows it only escaped: it is the peer's
// bytes, whatever this side's checks were.

// CheckName refuses a --name the hello cannot carry or a screen would
// show as escapes: too long, not UTF-8, or with control characters.
func CheckName(name string) error {
	if len(name) > privdata.MaxVoteName {
		return configError(text.Text{EN: fmt.Sprintf("--name is %d bytes; at most %d fit in the hello (a short name or nickname, e.g. --name ada)", len(name), privdata.MaxVoteName),
			ZH: fmt.Sprintf("--name 有 %d 字节；hello 里最多放 %d 字节（用短名字或昵称，例如 --name ada）", len(name), privdata.MaxVoteName)})
	}
	for _, r := range name {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return configError(text.Text{EN: fmt.Sprintf("--name %q: only printable characters (letters, digits, spaces, punctuation)", name),
				ZH: fmt.Sprintf("--name %q：只能用可打印字符（字母、数字、空格、标点）", name)})
		}
	}
	return nil
}

// learnPeerName records the name in the peer's hello, escaped.
func learnPeerName(p []byte, pt *PeerInfo) {
	name, err := privdata.ParseHelloName(p)
	if err != nil {
		if pt.Bad == "" {
			pt.Bad = err.Error()
		}
		return
	}
	pt.Name = name.String()
}
