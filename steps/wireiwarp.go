package steps

import (
	"fmt"
	"net/netip"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// On an iWARP device the capture decodes messages from the TCP stream,
// which carry no QP number: this side's are those of its connection, the
// pair of addresses rdma_get_local_addr and rdma_get_peer_addr give. On
// siw that pair is the TCP connection's: the client's local port is the
// TCP source port tcpdump shows and the server's peer port the same
// (measured across two siw guests, scripts/qemu/siw-two-guests.sh:
// "local = 10.0.3.2:48824" on the client, "from = 10.0.3.2:48824" on the
// server, 10.0.3.2.48824 > 10.0.3.1.7471 in the capture).

// learnConn notes this side's connection, which outlives the CM id (a
// message read after teardown still belongs to it). Called with s.mu
// held.
func (s *Session) learnConn() {
	if s.id == nil {
		return
	}
	local, peer := unmapped(s.id.LocalAddr()), unmapped(s.id.PeerAddr())
	if local.Port() != 0 && peer.Port() != 0 {
		s.wireConn = [2]netip.AddrPort{local, peer}
	}
}

func unmapped(a netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
}

// ownIWARP says an iWARP message crossed this side's connection, either
// way. Called with s.mu held.
func (s *Session) ownIWARP(m *verbs.IWARP) bool {
	local, peer := s.wireConn[0], s.wireConn[1]
	if !local.IsValid() {
		return false
	}
	from, to := unmapped(m.From), unmapped(m.To)
	return (from == local && to == peer) || (from == peer && to == local)
}

// isRequest: a message this side's NIC sends because a step posted work
// (not a CM message or an MPA frame, not a response its NIC makes by
// itself), which causeOf gives to the step that posted it.
func isRequest(p verbs.Packet) bool {
	if !p.Outbound || p.CM != "" {
		return false
	}
	if m := p.IWARP; m != nil {
		return m.MPA == verbs.MPANone && m.Fault == verbs.IWARPOK && !m.IsResponse()
	}
	return !isResponse(p.Opcode)
}

// transportPacket: a packet of the RC transport or an iWARP FPDU, not a
// CM message, an MPA frame or where decoding stopped (what sawWire
// counts).
func transportPacket(p verbs.Packet) bool {
	if m := p.IWARP; m != nil {
		return m.MPA == verbs.MPANone && m.Fault == verbs.IWARPOK
	}
	return p.CM == ""
}

// noteIWARP puts on the timeline a peer's RDMA Write landing in this
// side's memory, once its last DDP segment came (a Write larger than the
// TCP MSS is several tagged segments, only the last marked last:
// wire/testdata/siw-twohosts-read.pcap's Read Response). Called with s.mu
// held.
func (s *Session) noteIWARP(p verbs.Packet) {
	m := p.IWARP
	if p.Outbound || m.MPA != verbs.MPANone || m.Fault != verbs.IWARPOK || !m.Tagged || m.Opcode != verbs.RDMAPWrite {
		return
	}
	s.iwarpWriteLen += p.PayloadLen
	if !m.Last {
		return
	}
	n, role := s.iwarpWriteLen, s.cfg.Role.String()
	s.iwarpWriteLen = 0
	detail := text.Text{EN: fmt.Sprintf("%d B into STag 0x%x: the %s's NIC checks the STag and places them itself — no CPU, no completion on the %s", n, m.STag, role, role),
		ZH: fmt.Sprintf("%d 字节写进 STag 0x%x：%s 的网卡检查 STag 后自己放进内存 —— %s 的 CPU 不参与，也没有完成", n, m.STag, role, role)}
	s.insertTimeline(TimelineEntry{Time: p.Time, FromServer: s.cfg.Role != Server, Label: "RDMA WRITE",
		Detail: detail.EN, DetailZH: detail.ZH, fromWire: true})
}
