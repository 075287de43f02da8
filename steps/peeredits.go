package steps

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Both sides know of an edit: a side's edits made before its hello left
// (the client's before rdma_connect, the server's before rdma_accept)
// travel in the hello (privdata/helloedits.go). The other side says so
// when the hello arrives, and again on the step that fails, where the
// consequence arrives: "the server changed reg-mr-data.access…". Edits
// made after the hello crossed reach the peer only through what they do.

// helloRoom is how many bytes this side's hello may take: the REQ's
// private data on the client, what remote_info leaves of the REP's on the
// server.
func (s *Session) helloRoom() int {
	if s.cfg.Role == Server {
		return verbs.MaxAcceptPrivateData - privdata.RemoteInfoSize
	}
	return verbs.MaxConnectPrivateData
}

// announcedEdits are the learner's edits as the hello carries them (a
// lesson's preset goes by the lesson's name, already in the hello).
func (s *Session) announcedEdits() []string {
	var out []string
	for _, e := range s.learnerEdits() {
		out = append(out, e.Key()+"="+e.Value.Raw)
	}
	return out
}

// learnPeerEdits reads the edits section of the peer's hello p into pe.
func learnPeerEdits(p []byte, pt *PeerInfo) {
	pe, err := privdata.ParseHelloEdits(p)
	if err != nil {
		if pt.Bad == "" {
			pt.Bad = err.Error()
		}
		return
	}
	for _, e := range pe.List {
		pt.Edits = append(pt.Edits, e.String()) // escaped: bytes from the peer
	}
	pt.EditsOmitted = pe.Omitted
}

// peerEditsText names the peer's announced edits; empty when it made
// none.
func (pt PeerInfo) peerEditsText() (list string, ok bool) {
	if len(pt.Edits) == 0 && pt.EditsOmitted == 0 {
		return "", false
	}
	list = strings.Join(pt.Edits, ", ")
	if pt.EditsOmitted > 0 {
		if list != "" {
			list += ", "
		}
		list += fmt.Sprintf("+%d", pt.EditsOmitted)
	}
	return list, true
}

// peerEditsArrived is the note of the step that read the peer's hello.
func (s *Session) peerEditsArrived(pt PeerInfo) text.Text {
	list, ok := pt.peerEditsText()
	if !ok {
		return text.Text{}
	}
	peer := s.cfg.Role.Peer().String()
	return text.Text{EN: fmt.Sprintf("The %s runs with edits of its own: %s. Where this side feels them, its steps will say so.", peer, list),
		ZH: fmt.Sprintf("%s 带着自己的修改在跑：%s。本端哪一步受到影响，那一步会注明。", peer, list)}
}

// peerEditsNote is added to a failed step's note: the peer changed
// something before the failure, which may be its cause.
func (s *Session) peerEditsNote() text.Text {
	list, ok := s.PeerInfo().peerEditsText()
	if !ok {
		return text.Text{}
	}
	peer := s.cfg.Role.Peer().String()
	return text.Text{EN: fmt.Sprintf("The %s changed %s before this: that may be why.", peer, list),
		ZH: fmt.Sprintf("%s 在这之前改了 %s：原因可能就在这里。", peer, list)}
}
