package steps

import "github.com/rdmatour/rdmatour/verbs"

// Each side its own: a device may carry more than this side's traffic
// (the demo runs both sides on one simulated NIC; a workshop server runs
// every attendee on one device). The wire pane shows the packets of this
// side's QP, seen from this side, and the counters of this QP where the
// device counts per QP. Both are chosen from what the device reports,
// never relabelled.

// learnQP notes this side's QP number and its peer's, which outlive the
// QP (late packets still belong to it). Called with s.mu held.
func (s *Session) learnQP() {
	if s.qp == nil {
		return
	}
	if n := s.qp.Num(); n != s.wireQP {
		s.wireQP, s.wireDest = n, 0
	}
	if s.wireDest == 0 {
		if a, err := s.qp.Query(); err == nil {
			s.wireDest = a.DestQPNum
		}
	}
}

// ownPacket says p was sent by this side's QP or is for it. A device
// that names the local QP (the simulated NIC) decides; a capture sees
// only the destination QP: inbound packets for our QP, outbound ones for
// our peer's. A capture's CM MADs go to QP1 and carry no QP of ours:
// they are kept.
func (s *Session) ownPacket(p verbs.Packet) bool {
	switch {
	case p.CM != "":
		return true
	case s.wireQP == 0:
		return false // no QP yet: not ours
	case p.LocalQP != 0:
		return p.LocalQP == s.wireQP
	case !p.Outbound:
		return p.DestQP == s.wireQP
	}
	return s.wireDest == 0 || p.DestQP == s.wireDest
}

// readCounters is this side's counters: its QP's own where the device
// counts per QP (after the QP is destroyed, its last counts), else the
// port's. perQP says which. Called with s.mu held.
func (s *Session) readCounters() (c map[string]uint64, perQP bool, err error) {
	s.learnQP()
	if r, ok := s.dev.(verbs.QPCounterReader); ok && s.wireQP != 0 {
		if c, err := r.QPCounters(s.wireQP); err == nil {
			s.qpCounters = c
			return c, true, nil
		}
		if s.qpCounters != nil {
			return s.qpCounters, true, nil
		}
	}
	c, err = s.dev.Counters(s.portNum())
	return c, false, err
}
