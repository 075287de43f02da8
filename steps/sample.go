package steps

import (
	"encoding/binary"
	"time"
)

// Sampling: what the session learns by looking at the device rather than
// by running a step (the QP's state history, which bytes of the buffers
// changed and when, the wire's new packets) is taken in one explicit
// call, Sample. RunNext samples at the end of every step; a front end
// that shows the peer's bytes land between steps (the TUI) samples on its
// tick. Snapshot only copies, so what the learner sees, and what a
// recording keeps, does not depend on how often something draws.

// Sample reads the device and notes what changed since the last sample,
// as of now. It never blocks on a running step.
func (s *Session) Sample(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sampleLocked(now)
}

// sampleLocked is Sample with s.mu held.
func (s *Session) sampleLocked(now time.Time) {
	if s.closed {
		return
	}
	if s.dev != nil {
		s.refreshPackets()
		s.readCounters() // remembers the QP's counts for after it is gone
	}
	if s.qp != nil {
		if attr, err := s.qp.Query(); err == nil {
			if n := len(s.qpHistory); n == 0 || s.qpHistory[n-1] != attr.State {
				s.qpHistory = append(s.qpHistory, attr.State)
			}
		}
	}
	if s.mrData != nil {
		if b, err := s.mrData.Read(0, s.dataLen()); err == nil {
			s.noteLanding(s.trackData(b, now), now)
		}
	}
	if s.mrDoor != nil {
		if b, err := s.mrDoor.Read(0, 8); err == nil {
			if v := binary.BigEndian.Uint64(b); v != s.prevDoorbell {
				s.prevDoorbell, s.doorbellAt = v, now
			}
		}
	}
	if s.id != nil {
		s.peerIsLocal() // remembered: Snapshot only reads it
	}
}
