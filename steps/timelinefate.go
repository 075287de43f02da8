package steps

import (
	"fmt"
	"strings"

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
// a flush marks its message, a remote error is a NAK the responder sent.
func (s *Session) completionFate(wc verbs.WC) {
	switch wc.Status {
	case verbs.WCWRFlushErr:
		if label := wrLabel(wc.WRID); label != "" {
			s.setLastFate(label, FateFlushed)
		}
	case verbs.WCRemAccessErr:
		s.got("NAK", "remote access error (AETH 0x62): the QP goes to ERR")
	case verbs.WCRemInvReqErr:
		s.got("NAK", "invalid request (AETH 0x61): the QP goes to ERR")
	case verbs.WCRemOpErr:
		s.got("NAK", "remote operational error (AETH 0x63): the QP goes to ERR")
	case verbs.WCRNRRetryExcErr:
		s.got("RNR NAK", "receiver not ready: no RECV posted, rnr_retry_count used up")
	}
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
// (rnr_retry_count 7 while the server's RECV was late).
func (s *Session) sendRNRNAKs() {
	s.mu.Lock()
	base, counted := s.sendRNRBase, s.sendRNRCounted
	s.mu.Unlock()
	if n, ok := s.rnrNAKsReceived(); counted && ok && n > base {
		s.got("RNR NAK", fmt.Sprintf("×%d: no RECV posted yet; the SEND was retried (rcvd_rnr_err +%d)", n-base, n-base))
	}
}

// responderNAKs adds the NAKs this side's NIC sent, as far as it can see
// them: RNR NAKs counted by send_rnr_err since rdma_accept, and NAKs among
// the outbound packets.
func (s *Session) responderNAKs() {
	s.mu.Lock()
	if s.dev != nil {
		s.refreshPackets()
	}
	var naks []string
	for _, p := range s.packets {
		if p.Outbound && p.AETH != nil && p.AETH.Syndrome&0xE0 == verbs.SyndromeNAKPSNSeqErr {
			naks = append(naks, fmt.Sprintf("AETH 0x%02x: the WRITE is refused, this QP goes to ERR", p.AETH.Syndrome))
		}
	}
	s.mu.Unlock()
	for _, d := range naks {
		s.sent("NAK", d)
	}
}
