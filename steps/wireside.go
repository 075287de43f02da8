package steps

import (
	"fmt"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

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
	case p.IWARP != nil:
		return s.ownIWARP(p.IWARP)
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
// port's. perQP says which. It remembers the QP and its counts for when
// the QP is gone. Called with s.mu held.
func (s *Session) readCounters() (c map[string]uint64, perQP bool, err error) {
	s.learnQP()
	if r, ok := s.dev.(verbs.QPCounterReader); ok && s.wireQP != 0 {
		if c, err := r.QPCounters(s.wireQP); err == nil {
			s.qpCounters = c
		}
	}
	return s.peekCounters()
}

// peekCounters is readCounters remembering nothing (for Snapshot).
// Called with s.mu held.
func (s *Session) peekCounters() (c map[string]uint64, perQP bool, err error) {
	qpn := s.wireQP
	if s.qp != nil {
		qpn = s.qp.Num()
	}
	if r, ok := s.dev.(verbs.QPCounterReader); ok && qpn != 0 {
		if c, err := r.QPCounters(qpn); err == nil {
			return c, true, nil
		}
		if s.qpCounters != nil {
			return s.qpCounters, true, nil
		}
	}
	c, err = s.dev.Counters(s.portNum())
	return c, false, err
}

// noteWire puts on this side's timeline what its NIC did with no step of
// its own: a peer's WRITE landing in its memory (no CPU, and no
// completion unless it carries an immediate) and a NAK, sent or
// received. Seen only where the packets are (the simulated NIC, a
// capture). Called with s.mu held.
func (s *Session) noteWire(p verbs.Packet) {
	server, role := s.cfg.Role == Server, s.cfg.Role.String()
	s.rememberFirst(p)
	var label string
	var detail text.Text
	switch {
	case p.IWARP != nil:
		s.noteIWARP(p)
		return
	case p.CM != "":
		return
	case !p.Outbound && (p.Opcode == verbs.OpRDMAWriteOnly || p.Opcode == verbs.OpRDMAWriteFirst):
		label = "RDMA WRITE"
		detail = text.Text{EN: fmt.Sprintf("%d B: the %s's NIC checks the rkey and writes them itself — no CPU, no completion on the %s", writeLen(p), role, role),
			ZH: fmt.Sprintf("%d 字节：%s 的网卡检查 rkey 后自己写进内存 —— %s 的 CPU 不参与，也没有完成", writeLen(p), role, role)}
	case !p.Outbound && p.Opcode == verbs.OpRDMAWriteOnlyWithImm:
		label = "RDMA WRITE+IMM"
		detail = text.Text{EN: fmt.Sprintf("%d B: the %s's NIC writes them itself; the immediate consumes a RECV and completes it", writeLen(p), role),
			ZH: fmt.Sprintf("%d 字节：%s 的网卡自己写进内存；立即数消耗一个 RECV 并产生完成", writeLen(p), role)}
	case p.AETH != nil && p.AETH.Syndrome&0xE0 == verbs.SyndromeRNRNAKBase:
		label = "RNR NAK"
		detail = s.rnrNAKNote(p.Outbound)
	case p.Outbound && (p.Lost || p.Retransmit):
		s.noteLostOrResent(p)
		return
	case p.AETH != nil && p.AETH.Syndrome == verbs.SyndromeNAKPSNSeqErr:
		label = fmt.Sprintf("NAK PSN sequence error psn=%d", p.PSN)
		detail = text.Text{EN: fmt.Sprintf("a packet before PSN %d never arrived: the responder drops what follows the gap and asks for %d; the requester goes back to it (go-back-N)", p.PSN, p.PSN),
			ZH: fmt.Sprintf("PSN %d 之前缺了一个包：响应端丢掉缺口之后的包，要求从 %d 开始；请求端退回到那里重发（go-back-N）", p.PSN, p.PSN)}
	case p.AETH != nil && p.AETH.Syndrome&0xE0 == verbs.SyndromeNAKPSNSeqErr:
		label = verbs.SyndromeName(p.AETH.Syndrome)
		detail = text.Text{EN: "the responder's NIC refused the request: the WR fails", ZH: "响应端网卡拒绝了这个请求：这个 WR 失败"}
		if p.Outbound {
			s.refusedWrite(p.AETH.Syndrome)
		}
	default:
		return
	}
	from := server == p.Outbound // who sent it, as the timeline draws arrows
	s.insertTimeline(TimelineEntry{Time: p.Time, FromServer: from, Label: label, Detail: detail.EN, DetailZH: detail.ZH, fromWire: true})
}

// noteLostOrResent puts on the timeline a packet this side sent that the
// wire lost (drawn crossed out, reaching no one) or that the requester
// sent again, with its PSN and the time since its first copy. Called
// with s.mu held.
func (s *Session) noteLostOrResent(p verbs.Packet) {
	e := TimelineEntry{Time: p.Time, FromServer: s.cfg.Role == Server, fromWire: true,
		Label: fmt.Sprintf("%s psn=%d", verbs.OpcodeName(p.Opcode), p.PSN)}
	if p.Retransmit && isReadResponse(p.Opcode) {
		// rxe keeps a READ's address and length, not its data, and reads
		// the MR again for a duplicate (rxe_resp.c duplicate_request; the
		// sim: verbs/sim replay.go).
		e.Label += " ↻"
		e.Detail, e.DetailZH = "answered again: the requester asked for this READ again (from the first response it lacks), and the NIC reads the buffer again — a duplicate READ is not answered from a saved copy",
			"再回答一次：请求端又请求了这个 READ（从它缺的第一个响应起），网卡就把 buffer 再读一遍——重复的 READ 不是拿保存的副本回答的"
	} else if p.Retransmit {
		e.Label += " ↻"
		e.Detail, e.DetailZH = "sent again (a NAK asked for it, or the ACK timer fired)", "重传（NAK 要求的，或 ACK 定时器超时）"
		if first, ok := s.firstSent[p.PSN]; ok && first.Before(p.Time) {
			ms := float64(p.Time.Sub(first).Microseconds()) / 1000
			e.Detail += fmt.Sprintf(", %.1f ms after the first copy", ms)
			e.DetailZH += fmt.Sprintf("，距第一次发出 %.1f ms", ms)
		} else if psn, at, ok := s.readContinued(p); ok {
			// A READ asked again from a lost response's PSN: that PSN
			// was never a request's, the READ it continues was.
			ms := float64(p.Time.Sub(at).Microseconds()) / 1000
			e.Detail = fmt.Sprintf("the READ at psn=%d asked again from a response that never arrived, %.1f ms after it (the ACK timer fired)", psn, ms)
			e.DetailZH = fmt.Sprintf("psn=%d 的 READ 从一个没到的响应起重新请求，距它 %.1f ms（ACK 定时器超时）", psn, ms)
		}
	}
	if p.Lost {
		e.Fate = FateLost
	}
	s.insertTimeline(e)
}

func isReadResponse(op uint8) bool {
	return op >= verbs.OpRDMAReadRespFirst && op <= verbs.OpRDMAReadRespOnly
}

// readContinued is, for a READ request sent again from a PSN no earlier
// request had, the READ it continues: the latest request PSN before it,
// and when that went out. Called with s.mu held.
func (s *Session) readContinued(p verbs.Packet) (psn uint32, at time.Time, ok bool) {
	if p.Opcode != verbs.OpRDMAReadRequest {
		return 0, time.Time{}, false
	}
	best := int32(1 << 23)
	for q, t := range s.firstSent {
		if d := int32((p.PSN-q)<<8) >> 8; d > 0 && d < best && t.Before(p.Time) {
			best, psn, at, ok = d, q, t, true
		}
	}
	return psn, at, ok
}

// rememberFirst notes when this side first sent a request PSN, so a
// retransmission can say how long after it came. Called with s.mu held.
func (s *Session) rememberFirst(p verbs.Packet) {
	if !p.Outbound || p.CM != "" || p.AETH != nil || p.IWARP != nil {
		return
	}
	if s.firstSent == nil {
		s.firstSent = map[uint32]time.Time{}
	}
	if _, seen := s.firstSent[p.PSN]; !seen {
		s.firstSent[p.PSN] = p.Time
	}
}

// insertTimeline adds e in time order: a packet may be read after later
// entries were added. Called with s.mu held.
func (s *Session) insertTimeline(e TimelineEntry) {
	i := len(s.timeline)
	for i > 0 && s.timeline[i-1].Time.After(e.Time) {
		i--
	}
	s.timeline = append(s.timeline[:i], append([]TimelineEntry{e}, s.timeline[i:]...)...)
}

// writeLen is the length a WRITE's RETH announces (the whole message).
func writeLen(p verbs.Packet) int {
	if p.RETH != nil {
		return int(p.RETH.DMALen)
	}
	return p.PayloadLen
}

// doorbellSeen notes on the timeline that this side's CPU saw the
// doorbell flag: on the WRITE that set it where the packets showed it
// arrive (one message, not two), else as an entry of its own.
func (s *Session) doorbellSeen() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dev != nil {
		s.refreshPackets()
	}
	const en, zh = "the CPU sees doorbell = 1", "CPU 看到 doorbell = 1"
	for i := len(s.timeline) - 1; i >= 0; i-- {
		e := &s.timeline[i]
		if e.fromWire && e.Label == "RDMA WRITE" {
			e.Detail += "\n" + en
			e.DetailZH += "\n" + zh
			return
		}
	}
	s.timeline = append(s.timeline, TimelineEntry{Time: time.Now(), FromServer: s.cfg.Role != Server,
		Label: "RDMA WRITE", Detail: "doorbell = 1", DetailZH: "doorbell = 1"})
}

// noteLanding puts the peer's WRITE on the server's timeline where no
// packet shows it (a real device with both ends on one host loops them
// back inside the kernel, and no capture sees them): the server's data
// buffer changed, and only the client's WRITE writes it. Called with s.mu
// held, from the snapshot that saw the bytes change.
func (s *Session) noteLanding(changed int, now time.Time) {
	if changed == 0 || s.cfg.Role != Server || s.cfg.Provider.Simulated() || s.sawWire || !s.connected {
		return
	}
	s.timeline = append(s.timeline, TimelineEntry{Time: now, FromServer: false, Label: "RDMA WRITE",
		Detail:   fmt.Sprintf("seen as %d B changing in the server's buffer: no CPU, no completion on the server", changed),
		DetailZH: fmt.Sprintf("server 的 buffer 里有 %d 字节变了：server 的 CPU 不参与，也没有完成", changed)})
}

// atomicsLocked is what this connection's atomics found, as the server's
// wire shows them: each FETCH_ADD or COMPARE_SWAP that came in, paired by
// PSN with the ATOMIC_ACKNOWLEDGE this side's NIC sent back, whose
// AtomicAckETH carries the old value the attendee's completion returns
// ("FETCH_ADD +2 → old 44 · COMPARE_SWAP 46→1000 → old 48 (no swap)").
// Empty when the device shows no packets (a real device this process
// may not capture on) or none came yet. Called with s.mu held.
func (s *Session) atomicsLocked() string {
	pending := map[uint32]*verbs.AtomicETH{}
	op := map[uint32]uint8{}
	var parts []string
	for _, wp := range s.packets {
		p := wp.Packet
		switch {
		case !p.Outbound && p.AtomicETH != nil:
			pending[p.PSN], op[p.PSN] = p.AtomicETH, p.Opcode
		case p.Outbound && p.AtomicAck != nil && pending[p.PSN] != nil:
			parts = append(parts, atomicSeen(op[p.PSN], pending[p.PSN], *p.AtomicAck))
			delete(pending, p.PSN)
		}
	}
	return strings.Join(parts, " · ")
}

// atomicSeen is one atomic and the old value it found.
func atomicSeen(opcode uint8, a *verbs.AtomicETH, old uint64) string {
	if opcode == verbs.OpCompareSwap {
		held := "swapped"
		if old != a.Compare {
			held = "no swap"
		}
		return fmt.Sprintf("COMPARE_SWAP %d→%d → old %d (%s)", a.Compare, a.SwapAdd, old, held)
	}
	return fmt.Sprintf("FETCH_ADD +%d → old %d", a.SwapAdd, old)
}
