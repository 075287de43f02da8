package steps

import (
	"testing"

	"github.com/rdmatour/rdmatour/steps/privdata"
)

// A peer's name is its bytes: a hostile hello's escape sequence reaches
// the roster escaped, never raw.
func TestPeerNameEscaped(t *testing.T) {
	h, err := HelloFor(TourWrite, "").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p, err := privdata.AppendHelloVote(h, false, privdata.HelloVote{Pick: 1, Name: privdata.PeerBytes("\x1b]0;pwned\x07ok")})
	if err != nil {
		t.Fatal(err)
	}
	var pt PeerInfo
	learnPeerVote(append(p, make([]byte, 56-len(p))...), &pt)
	if want := `\e]0;pwned\aok`; pt.Name != want {
		t.Errorf("name %q, want %q", pt.Name, want)
	}
}
