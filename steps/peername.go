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

// learnPeerVote records the vote in the peer's hello (a workshop
// attendee's pick and name), the name escaped: bytes from the peer. A
// vote that cannot be read is said in Bad, as a bad hello is.
func learnPeerVote(p []byte, pt *PeerInfo) {
	v, found, err := privdata.ParseHelloVote(p)
	switch {
	case err != nil && pt.Bad == "":
		pt.Bad = err.Error()
	case found && err == nil:
		pt.Vote, pt.Name = v, v.Name.String()
	}
}
