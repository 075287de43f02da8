package steps

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

// Snapshot copies the session's state for rendering. It reads live state
// from the device (QP state, buffers, counters) without blocking on a
// running step, and writes nothing: what changed since the last look
// (change times, the QP's history, new packets) is what the last Sample
// noted. Two Snapshots with nothing in between are equal.
func (s *Session) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked()
}

// snapshotLocked is Snapshot with s.mu held.
func (s *Session) snapshotLocked() Snapshot {
	snap := s.snapshotSteps()
	if s.closed {
		snap.Released = true
		snap.Timeline = append([]TimelineEntry(nil), s.timeline...)
		snap.setCompletions(s.completions)
		snap.Result = copyResult(s.result)
		snap.Packets = append([]WirePacket(nil), s.packets...)
		snap.Remote = copyRemote(s.remote)
		snap.setQPHistory(s.qpHistory)
		snap.UD = s.udSnapshot()
		snap.UsedDevice = s.usedDevice
		return snap
	}
	s.snapshotDevice(&snap)
	s.snapshotResources(&snap)
	s.snapshotMemory(&snap)
	snap.Remote = copyRemote(s.remote)
	snap.UD = s.udSnapshot()
	snap.Timeline = append([]TimelineEntry(nil), s.timeline...)
	snap.Packets = append([]WirePacket(nil), s.packets...)
	snap.Wire = s.wireStatus()
	snap.Result = copyResult(s.result)
	return snap
}

// snapshotSteps is the tour's progress: the header fields and each step.
func (s *Session) snapshotSteps() Snapshot {
	snap := Snapshot{
		Role: s.cfg.Role, Notify: s.cfg.Notify,
		Backend: s.cfg.Provider.Name(), Simulated: s.cfg.Provider.Simulated(), Why: s.cfg.BackendWhy,
		Next: s.next, Running: s.running, Done: s.done, Failed: s.failed, Err: s.lastErr,
		Lesson: s.cfg.LessonName(), Track: s.cfg.Track, Tour: s.cfg.Tour,
	}
	if l := s.cfg.Lesson; l != nil {
		snap.LessonTitle, snap.LessonSummary = l.Title, l.Summary
	}
	snap.Prediction = s.predictionLocked()
	snap.Peer = s.peerTour
	for i, st := range s.tour {
		st.Call = s.shownCall(st)
		snap.Steps = append(snap.Steps, NewStepStatus(st, s.states[i], s.outcomes[i], snap.Prediction))
	}
	return snap
}

// snapshotDevice is the device, its port and counters, the new packets,
// and the CM id.
func (s *Session) snapshotDevice(snap *Snapshot) {
	defer func() { snap.UsedDevice = s.usedDevice }()
	if s.dev != nil {
		ds := &DeviceState{Info: s.dev.Info(), PortNum: 1}
		if s.id != nil && s.id.PortNum() != 0 {
			ds.PortNum = s.id.PortNum()
		}
		if pa, err := s.dev.QueryPort(ds.PortNum); err == nil {
			ds.Port = pa
			if s.id != nil {
				ds.GIDIndex, ds.GID = gidInUse(pa, s.id.LocalAddr().Addr())
				if ds.GIDIndex >= 0 || s.usedDevice == nil {
					used := *ds // the one with its GID, once known
					s.usedDevice = &used
				}
			}
		}
		snap.Device = ds
		s.refreshCounters(snap)
	}
	if s.id != nil || s.listener != nil {
		cs := &CMIDState{LastEvent: s.lastEvent, EventStatus: s.eventStatus, Connected: s.connected && !s.disconnected}
		if s.id != nil {
			cs.Local, cs.Peer = s.id.LocalAddr().String(), s.id.PeerAddr().String()
		} else {
			cs.Local = s.listener.LocalAddr().String()
			cs.Listening = s.listened()
		}
		snap.CMID = cs
	}
}

// snapshotResources is the PD, the CQ with its completions, the QP and
// the MR table.
func (s *Session) snapshotResources(snap *Snapshot) {
	if s.pd != nil {
		snap.PD = &PDState{Handle: s.pd.Handle()}
	}
	if s.cq != nil {
		snap.CQ = &CQState{CQE: s.cq.CQE()}
	}
	snap.setCompletions(s.completions)
	if s.qp != nil {
		qs := &QPState{Num: s.qp.Num(), Type: s.qp.Type().String()}
		qs.History = append([]verbs.QPState(nil), s.qpHistory...)
		if attr, err := s.qp.Query(); err == nil {
			qs.Attr = attr
			// The state as it is now ends the history even before a
			// Sample notes it (in the copy only).
			if n := len(qs.History); n == 0 || qs.History[n-1] != attr.State {
				qs.History = append(qs.History, attr.State)
			}
		} else {
			qs.Query = err.Error()
		}
		snap.QP = qs
	}
	for _, m := range []struct {
		name string
		mr   verbs.MR
	}{{"data", s.mrData}, {"doorbell", s.mrDoor}, {"recv", s.mrRecv}, {"send", s.mrSend}} {
		if m.mr != nil {
			snap.MRs = append(snap.MRs, MRState{Name: m.name, Addr: m.mr.Addr(), Len: m.mr.Len(), LKey: m.mr.LKey(), RKey: m.mr.RKey(), Access: m.mr.Access()})
		}
	}
}

// snapshotMemory reads the data buffer and the doorbell, with the change
// times the last Sample noted.
func (s *Session) snapshotMemory(snap *Snapshot) {
	if s.mrData != nil {
		if b, err := s.mrData.Read(0, s.dataLen()); err == nil {
			snap.Data = BufferState{Bytes: b, Changes: s.changes} // shared: never written in place
		}
	}
	if s.mrDoor != nil {
		if b, err := s.mrDoor.Read(0, 8); err == nil {
			snap.Doorbell = &DoorbellState{Value: binary.BigEndian.Uint64(b), ChangedAt: s.doorbellAt}
		}
	}
}

// listened says rdma_listen succeeded on the listener: the tour's listen
// step ran to success. Asked of the session's record of what ran, not of
// the step's position, which a lesson or a track may move.
func (s *Session) listened() bool { return reached(s.tour, s.states, MilestoneListening) }

// setCompletions copies wcs into the snapshot's CQ state.
func (snap *Snapshot) setCompletions(wcs []verbs.WC) {
	if snap.CQ == nil && len(wcs) == 0 {
		return
	}
	if snap.CQ == nil {
		snap.CQ = &CQState{}
	}
	snap.CQ.Completions = append([]verbs.WC(nil), wcs...)
}

// setQPHistory keeps the QP's state history after teardown.
func (snap *Snapshot) setQPHistory(h []verbs.QPState) {
	if len(h) == 0 {
		return
	}
	snap.QP = &QPState{History: append([]verbs.QPState(nil), h...), Attr: verbs.QPAttr{State: h[len(h)-1]}}
}

func copyRemote(r *RemoteState) *RemoteState {
	if r == nil {
		return nil
	}
	return &RemoteState{Info: r.Info, Raw: append(privdata.PeerBytes(nil), r.Raw...)}
}

func copyResult(r *Result) *Result {
	if r == nil {
		return nil
	}
	return &Result{Tour: r.Tour, Summary: r.Summary, Via: r.Via, Message: append(privdata.PeerBytes(nil), r.Message...), Notice: append(privdata.PeerBytes(nil), r.Notice...)}
}

// trackData records which bytes of the data buffer changed and when, and
// says how many did since the last look.
// Each run of changed bytes goes over the runs as a new list
// (changeruns.go), which snapshots share.
func (s *Session) trackData(b []byte, now time.Time) (changed int) {
	if s.prevData == nil {
		s.prevData = make([]byte, len(b))
	}
	for i := 0; i < len(b); {
		if b[i] == s.prevData[i] {
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] != s.prevData[j] {
			s.prevData[j] = b[j]
			j++
		}
		s.changes = overlay(s.changes, i, j-i, now)
		changed += j - i
		i = j
	}
	return changed
}

// markCounters remembers the counters before a step so the snapshot can
// show what the step changed. A packet can arrive between two steps (the ACK of a WRITE whose post
// has returned, while the learner reads): the baseline is where the last
// step's snapshot ended, so that packet counts in the next step. Only
// the first step, or one after a step that kept no counters, reads its
// own.
func (s *Session) markCounters() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dev == nil {
		s.countersAt = nil
		return
	}
	if s.countersEnd != nil {
		s.countersAt, s.countersAtPerQP = s.countersEnd, s.countersEndPerQP
		s.readCounters() // remembers the QP's counts, as before
		return
	}
	c, perQP, err := s.readCounters()
	if err != nil {
		return
	}
	s.countersAt, s.countersAtPerQP = c, perQP
}

func (s *Session) portNum() uint8 {
	if s.id != nil && s.id.PortNum() != 0 {
		return s.id.PortNum()
	}
	return 1
}

func (s *Session) refreshCounters(snap *Snapshot) {
	c, perQP, err := s.peekCounters()
	if err != nil || len(c) == 0 {
		return
	}
	snap.Counters, snap.CountersPerQP = c, perQP
	snap.CounterDelta = map[string]uint64{}
	if perQP != s.countersAtPerQP {
		return // the baseline counted something else (the port, before the QP)
	}
	for k, v := range c {
		if before, ok := s.countersAt[k]; ok && v > before {
			snap.CounterDelta[k] = v - before
		}
	}
}

// refreshPackets pulls new packets from a device that can show them.
func (s *Session) refreshPackets() {
	tr, ok := s.dev.(verbs.PacketTracer)
	if !ok {
		return
	}
	s.learnQP()
	s.learnConn()
	for _, p := range tr.Packets(s.lastPacketSeq) {
		s.lastPacketSeq = p.Seq
		// In a workshop the device is shared: wireFilter also drops the
		// other attendees' CM MADs, which ownPacket keeps.
		if s.ownPacket(p) && (s.wireFilter == nil || s.wireFilter(p)) {
			s.sawWire = s.sawWire || transportPacket(p)
			s.packets = append(s.packets, WirePacket{Packet: p, Step: s.causeOf(p)})
			s.answered.tally(p)
			s.noteWire(p)
		}
	}
	if n := len(s.packets); n > maxPackets {
		s.packets = append([]WirePacket(nil), s.packets[n-maxPackets:]...)
	}
}

// gidInUse finds the GID rdma_cm uses for a local IP: on RoCE v2 the
// IPv4-mapped (or IPv6) GID equal to the address. -1 when none matches.
func gidInUse(pa verbs.PortAttr, local netip.Addr) (int, string) {
	if !local.IsValid() {
		return -1, ""
	}
	want := netip.AddrFrom16(local.As16())
	for _, g := range pa.GIDs {
		if g.GID == want || g.GID.Unmap() == local.Unmap() {
			label := fmt.Sprintf("[%d] %s", g.Index, g.GID)
			if g.Type != "" {
				label += " " + g.Type
			}
			return g.Index, label
		}
	}
	return -1, ""
}

// wireStatus says whether this side's packets can be shown. Called with
// s.mu held.
func (s *Session) wireStatus() WireStatus {
	if s.cfg.Provider.Simulated() {
		return WireStatus{State: verbs.TraceSimulated}
	}
	ws := WireStatus{State: verbs.TraceUnavailable, Detail: "no RDMA device in use yet"}
	if r, ok := s.dev.(verbs.TraceStatusReporter); ok {
		st := r.TraceStatus()
		ws.State, ws.Detail = st.State, st.Detail
	}
	if s.id != nil && s.oneHost != nil {
		ws.OneHost = *s.oneHost // Sample asks once per connection
	}
	return ws
}

// peerIsLocal reports whether the peer's address belongs to this machine
// (asked once per connection: the answer does not change).
func (s *Session) peerIsLocal() bool {
	if s.oneHost == nil {
		peer := s.id.PeerAddr().Addr().Unmap()
		local := peer.IsLoopback()
		if addrs, err := net.InterfaceAddrs(); err == nil && !local {
			for _, a := range addrs {
				if pn, ok := a.(*net.IPNet); ok {
					if ip, ok := netip.AddrFromSlice(pn.IP); ok && ip.Unmap() == peer {
						local = true
					}
				}
			}
		}
		if !peer.IsValid() {
			return false
		}
		s.oneHost = &local
	}
	return *s.oneHost
}
