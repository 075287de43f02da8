package sim

// Datagrams on the sim's wire, their trace record, pcap frame and the GRH
// a receiver finds in front of the message.
//
//	datagram body: BTH (opcode u8 | flags u8 (0) | dest QP u32 | PSN u32) |
//	               DETH (Q_Key u32 | source QP u32) | ImmDt u32 (with
//	               immediate) | payload (at most maxMTU bytes)

import (
	"encoding/binary"
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
)

// kindDatagram frames carry one UD packet (SEND_ONLY with DETH).
const kindDatagram = 3

const dethLen = 8

// datagram is one UD packet.
type datagram struct {
	opcode      uint8
	destQP, psn uint32
	qkey, srcQP uint32
	hasImm      bool
	imm         uint32
	payload     []byte // owned: copied out of the sender's MR at post time
}

func encodeDatagram(g *datagram) []byte {
	n := bthLen + dethLen + len(g.payload)
	if g.hasImm {
		n += 4
	}
	b := make([]byte, frameHeaderLen+n)
	putFrameHeader(b, kindDatagram, n)
	t := b[frameHeaderLen:]
	t[0] = g.opcode
	binary.BigEndian.PutUint32(t[2:], g.destQP&0xFFFFFF)
	binary.BigEndian.PutUint32(t[6:], g.psn&0xFFFFFF)
	binary.BigEndian.PutUint32(t[10:], g.qkey)
	binary.BigEndian.PutUint32(t[14:], g.srcQP&0xFFFFFF)
	o := bthLen + dethLen
	if g.hasImm {
		binary.BigEndian.PutUint32(t[o:], g.imm)
		o += 4
	}
	copy(t[o:], g.payload)
	return b
}

// decodeDatagram parses a datagram body; the payload is copied.
func decodeDatagram(b []byte) (datagram, error) {
	var g datagram
	if len(b) < bthLen+dethLen {
		return g, fmt.Errorf("%w: datagram of %d bytes", errWire, len(b))
	}
	g.opcode = b[0]
	switch g.opcode {
	case verbs.OpUDSendOnly:
	case verbs.OpUDSendOnlyWithImm:
		g.hasImm = true
	default:
		return g, fmt.Errorf("%w: opcode 0x%02x is not a UD SEND_ONLY", errWire, g.opcode)
	}
	if b[1] != 0 {
		return g, fmt.Errorf("%w: unknown BTH flags 0x%02x", errWire, b[1])
	}
	g.destQP = binary.BigEndian.Uint32(b[2:])
	g.psn = binary.BigEndian.Uint32(b[6:])
	g.qkey = binary.BigEndian.Uint32(b[10:])
	g.srcQP = binary.BigEndian.Uint32(b[14:])
	if g.destQP > 0xFFFFFF || g.psn > 0xFFFFFF || g.srcQP > 0xFFFFFF {
		return g, fmt.Errorf("%w: QPN/PSN wider than 24 bits", errWire)
	}
	o := bthLen + dethLen
	if g.hasImm {
		if len(b) < o+4 {
			return g, fmt.Errorf("%w: datagram ImmDt truncated", errWire)
		}
		g.imm = binary.BigEndian.Uint32(b[o:])
		o += 4
	}
	if len(b)-o > maxMTU {
		return g, fmt.Errorf("%w: datagram payload larger than the MTU", errWire)
	}
	g.payload = append([]byte(nil), b[o:]...)
	return g, nil
}

// wirePacket is g as an InfiniBand transport packet.
func (g *datagram) wirePacket() wire.Packet {
	p := wire.Packet{BTH: wire.BTH{Opcode: wire.Opcode(g.opcode), PKey: 0xffff, DestQP: g.destQP, PSN: g.psn},
		DETH: &wire.DETH{QKey: g.qkey, SrcQP: g.srcQP}, Payload: g.payload}
	if g.hasImm {
		v := g.imm
		p.ImmDt = &v
	}
	return p
}

// traceDatagram records g for the wire pane.
func (d *device) traceDatagram(g *datagram, outbound bool) {
	pk := packet{Opcode: g.opcode, DestQP: g.destQP, PSN: g.psn, Payload: g.payload, HasImm: g.hasImm, Imm: g.imm}
	local := g.destQP // the QP of this device the packet belongs to
	if outbound {
		local = g.srcQP
	}
	d.trace(&pk, outbound, local, traceMark{})
}

// datagram writes g to the pcap as the RoCEv2 frame rxe would send.
func (t *tap) datagram(g *datagram, outbound bool) {
	if t == nil {
		return
	}
	t.mu.Lock()
	f := t.frame(g.wirePacket(), outbound, g.srcQP)
	t.mu.Unlock()
	f.IPID = g.ipID()
	t.sink.write(f, t.from(outbound))
}

// ipID is the IPv4 identification of g's frame. Linux numbers the
// datagrams to one destination consecutively; the sim uses the sending
// QP's PSN, which does the same per QP.
func (g *datagram) ipID() uint16 { return uint16(g.psn) }

// grhOf is the 40 bytes a UD receive buffer starts with for g, which
// arrived on c. Over RoCE v2 with IPv4 there is no GRH on the wire: like
// rxe (rxe_resp.c, struct rxe_roce4grh), the NIC leaves the first 20
// bytes zero and puts the packet's IPv4 header in the last 20.
func grhOf(c *conn, g *datagram) []byte {
	src, dst := addrPortOf(c.nc.RemoteAddr()), addrPortOf(c.nc.LocalAddr())
	f := wire.Frame{SrcMAC: macOf(src.Addr(), false), DstMAC: macOf(dst.Addr(), true),
		Src: ipv4Of(src.Addr()), Dst: ipv4Of(dst.Addr()), SrcPort: udpSourcePort(g.srcQP), TTL: 64,
		IPID: g.ipID(), Packet: g.wirePacket()}
	grh := make([]byte, verbs.GRHLen)
	b, err := f.Encode()
	if err != nil {
		return grh
	}
	const ethLen, ipv4Len = 14, 20
	copy(grh[verbs.GRHLen-ipv4Len:], b[ethLen:ethLen+ipv4Len])
	// Measured on rxe: the header checksum field reads 0 in the GRH.
	grh[verbs.GRHLen-ipv4Len+10], grh[verbs.GRHLen-ipv4Len+11] = 0, 0
	return grh
}
