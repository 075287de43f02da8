package steps

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The timeline draws a message when this side posts it. What became of
// it is known only later, from its completion: a flushed work request
// never completed (and, posted on a QP already in ERR, never left), and a
// refused one was answered by a NAK. These record that, so the timeline
// does not draw a flushed SEND as sent, and shows the NAKs.

// Fate is what became of a message the timeline drew.
type Fate int

const (
	// FateSent: posted (or received) normally; the default.
	FateSent Fate = iota
	// FateNeverSent: posted on a QP already in ERR; flushed, nothing left.
	FateNeverSent
	// FateFlushed: flushed after an earlier error; it may or may not
	// have left before the QP went to ERR, but it never completed.
	FateFlushed
	// FateLost: a packet that left and never arrived (--wire dropped it).
	FateLost
)

// wrLabel is the timeline label of the work request with this wr_id.
func wrLabel(wrid uint64) string {
	switch wrid {
	case WRIDSend:
		return "SEND"
	case WRIDWrite, WRIDDoorbell, WRIDEarly:
		return "RDMA WRITE"
	}
	return ""
}

// postedInERR says whether this side's QP is in ERR now (before a post):
// a WR posted now is flushed without being sent.
func (s *Session) postedInERR() bool {
	s.mu.Lock()
	qp := s.qp
	s.mu.Unlock()
	if qp == nil {
		return false
	}
	attr, err := qp.Query()
	return err == nil && attr.State == verbs.QPSErr
}

// sentWR adds a posted work request to the timeline, marked never sent
// when the QP was already in ERR.
func (s *Session) sentWR(label, detail string, inERR bool) {
	s.sent(label, detail)
	if inERR {
		s.setLastFate(label, FateNeverSent)
	}
}

// setLastFate marks the latest entry this side sent with label.
func (s *Session) setLastFate(label string, f Fate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fromMe := s.cfg.Role == Server
	for i := len(s.timeline) - 1; i >= 0; i-- {
		e := &s.timeline[i]
		if e.FromServer != fromMe || !strings.HasPrefix(e.Label, label) {
			continue
		}
		if e.Fate == FateSent {
			e.Fate = f
		}
		return // the latest one; an already marked one stays as it is
	}
}

// completionFate records what a failed completion says about the wire:
// a flush marks its message; a remote error is a NAK the responder sent,
// added when this side's packets (noteWire) did not already show it.
func (s *Session) completionFate(wc verbs.WC) {
	if wc.Status == verbs.WCWRFlushErr {
		if label := wrLabel(wc.WRID); label != "" {
			s.setLastFate(label, FateFlushed)
		}
		return
	}
	nak, ok := map[verbs.WCStatus]text.Text{
		verbs.WCRemAccessErr:   {EN: "remote access error (AETH 0x62): the QP goes to ERR", ZH: "remote access error（AETH 0x62）：QP 进入 ERR"},
		verbs.WCRemInvReqErr:   {EN: "invalid request (AETH 0x61): the QP goes to ERR", ZH: "invalid request（AETH 0x61）：QP 进入 ERR"},
		verbs.WCRemOpErr:       {EN: "remote operational error (AETH 0x63): the QP goes to ERR", ZH: "remote operational error（AETH 0x63）：QP 进入 ERR"},
		verbs.WCRNRRetryExcErr: {EN: "receiver not ready: no RECV posted, rnr_retry_count used up", ZH: "接收端未就绪：没有 post RECV，rnr_retry_count 用完了"},
	}[wc.Status]
	if !ok || s.wireShowsNAK() {
		return
	}
	label := "NAK"
	if wc.Status == verbs.WCRNRRetryExcErr {
		label = "RNR NAK"
	}
	s.gotText(label, nak)
}

// wireShowsNAK says whether this side's packets already put a NAK on the
// timeline (the simulated NIC always shows them; a real device when a
// capture runs).
func (s *Session) wireShowsNAK() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dev != nil {
		s.refreshPackets()
	}
	for _, e := range s.timeline {
		if e.fromWire && strings.Contains(e.Label, "NAK") {
			return true
		}
	}
	return false
}

// rnrNAKsReceived is the requester's count of RNR NAKs it received
// (rxe's and the sim's rcvd_rnr_err); ok false without the counter.
func (s *Session) rnrNAKsReceived() (uint64, bool) {
	s.mu.Lock()
	dev := s.dev
	s.mu.Unlock()
	if dev == nil {
		return 0, false
	}
	c, err := dev.Counters(s.portNum())
	if err != nil {
		return 0, false
	}
	n, ok := c["rcvd_rnr_err"]
	return n, ok
}

// markSendRNR remembers the RNR NAK count when a SEND is posted, so its
// completion can tell whether it was RNR-NAKed on the way.
func (s *Session) markSendRNR() {
	n, ok := s.rnrNAKsReceived()
	s.set(func() { s.sendRNRBase, s.sendRNRCounted = n, ok })
}

// sendRNRNAKs adds the RNR NAKs a SEND that succeeded met on the way
// (rnr_retry_count 7 while the server's RECV was late), when the packets
// did not show them.
func (s *Session) sendRNRNAKs() {
	s.mu.Lock()
	base, counted := s.sendRNRBase, s.sendRNRCounted
	s.mu.Unlock()
	if n, ok := s.rnrNAKsReceived(); counted && ok && n > base && !s.wireShowsNAK() {
		s.gotText("RNR NAK", text.Text{EN: fmt.Sprintf("×%d: no RECV posted yet; the SEND was retried (rcvd_rnr_err +%d)", n-base, n-base),
			ZH: fmt.Sprintf("×%d：还没有 post RECV；SEND 被重试（rcvd_rnr_err +%d）", n-base, n-base)})
	}
}
