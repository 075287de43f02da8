package wire

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// RoCEv2Port is the UDP destination port IANA assigned to RoCEv2.
const RoCEv2Port = 4791

// Frame is a RoCEv2 packet as it crosses an Ethernet wire: Ethernet,
// IPv4, UDP to port 4791, then the InfiniBand transport packet.
type Frame struct {
	SrcMAC, DstMAC net.HardwareAddr
	Src, Dst       netip.Addr // IPv4
	// SrcPort is the UDP source port. RoCEv2 uses it for ECMP entropy;
	// rxe derives it from the QP number (0xC000 | qpn hash).
	SrcPort uint16
	TTL     uint8 // 64 when 0
	TOS     uint8 // DSCP and ECN
	IPID    uint16
	Packet  Packet
	// ICRCValid is set by DecodeFrame: the ICRC on the wire matches the
	// one computed over the frame.
	ICRCValid bool
}

// Encode returns the whole Ethernet frame with the IPv4 checksum and the
// ICRC computed, and records the ICRC and pad count in f.Packet. The UDP checksum is 0, as rxe and RoCE NICs send it (the
// ICRC protects the payload).
func (f *Frame) Encode() ([]byte, error) {
	if !f.Src.Is4() || !f.Dst.Is4() {
		return nil, fmt.Errorf("wire: only IPv4 frames are supported (src %v, dst %v)", f.Src, f.Dst)
	}
	pkt, err := f.Packet.Marshal()
	if err != nil {
		return nil, err
	}
	ttl := f.TTL
	if ttl == 0 {
		ttl = 64
	}
	ipTotal := ipv4Len + udpLen + len(pkt)
	out := make([]byte, max(ethLen+ipTotal, minFrameLen))
	copy(out[0:6], f.DstMAC)
	copy(out[6:12], f.SrcMAC)
	binary.BigEndian.PutUint16(out[12:], uint16(layers.EthernetTypeIPv4))
	ip := out[ethLen : ethLen+ipv4Len]
	ip[0] = 0x45 // version 4, 5 words
	ip[1] = f.TOS
	binary.BigEndian.PutUint16(ip[4:], f.IPID)
	binary.BigEndian.PutUint16(ip[2:], uint16(ipTotal))
	binary.BigEndian.PutUint16(ip[6:], 0x4000) // don't fragment
	ip[8] = ttl
	ip[9] = uint8(layers.IPProtocolUDP)
	copy(ip[12:16], f.Src.AsSlice())
	copy(ip[16:20], f.Dst.AsSlice())
	binary.BigEndian.PutUint16(ip[10:], ipChecksum(ip))
	udp := out[ethLen+ipv4Len:]
	binary.BigEndian.PutUint16(udp[0:], f.SrcPort)
	binary.BigEndian.PutUint16(udp[2:], RoCEv2Port)
	binary.BigEndian.PutUint16(udp[4:], uint16(udpLen+len(pkt)))
	copy(udp[udpLen:], pkt)
	ipPacket := out[ethLen : ethLen+ipTotal]
	icrc := ICRC(ipPacket)
	binary.LittleEndian.PutUint32(ipPacket[len(ipPacket)-ICRCLen:], icrc)
	f.Packet.ICRC = icrc
	f.Packet.BTH.PadCount = uint8(pad(len(f.Packet.Payload)))
	return out, nil
}

const (
	ethLen  = 14
	ipv4Len = 20
	udpLen  = 8
	// minFrameLen is Ethernet's minimum without the FCS; shorter frames
	// are padded after the IP packet.
	minFrameLen = 60
)

func ipChecksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

// ICRC computes the invariant CRC of a RoCEv2 IPv4 packet given from its
// IPv4 header to its ICRC (whose four bytes are not covered). As in rxe:
// CRC-32 over eight bytes of 0xff standing for the LRH, the IPv4 header
// with TOS, TTL and checksum set to all ones, the UDP header with its
// checksum all ones, the BTH with its reserved byte (FECN/BECN) all ones,
// then the rest of the packet; stored little-endian.
func ICRC(ipPacket []byte) uint32 {
	n := len(ipPacket) - ICRCLen
	masked := make([]byte, 8, 8+n)
	for i := range masked {
		masked[i] = 0xff
	}
	masked = append(masked, ipPacket[:n]...)
	ip := masked[8:]
	ip[1] = 0xff                // TOS
	ip[8] = 0xff                // TTL
	ip[10], ip[11] = 0xff, 0xff // IPv4 checksum
	udp := ip[ipv4Len:]
	udp[6], udp[7] = 0xff, 0xff // UDP checksum
	bth := udp[udpLen:]
	bth[4] = 0xff // FECN, BECN, reserved
	return crc32.ChecksumIEEE(masked)
}

// DecodeFrame decodes an Ethernet frame carrying RoCEv2 over IPv4 and
// checks its ICRC. A frame that is not RoCEv2 is an ErrNotRoCE error.
func DecodeFrame(b []byte) (Frame, error) {
	pk := gopacket.NewPacket(b, layers.LayerTypeEthernet, gopacket.DecodeOptions{NoCopy: true, Lazy: true})
	eth, _ := pk.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
	ip, _ := pk.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
	udp, _ := pk.Layer(layers.LayerTypeUDP).(*layers.UDP)
	if eth == nil || ip == nil || udp == nil || udp.DstPort != RoCEv2Port {
		return Frame{}, ErrNotRoCE
	}
	if ip.IHL != 5 {
		return Frame{}, malformed("IPv4 options are not expected in RoCEv2")
	}
	src, _ := netip.AddrFromSlice(ip.SrcIP.To4())
	dst, _ := netip.AddrFromSlice(ip.DstIP.To4())
	payload := udp.Payload
	p, err := DecodePacket(payload)
	if err != nil {
		return Frame{}, err
	}
	ipStart := ethLen
	ipEnd := ipStart + int(ip.Length)
	if ipEnd > len(b) || int(ip.Length) != ipv4Len+udpLen+len(payload) {
		return Frame{}, malformed("IPv4 length %d does not match the frame", ip.Length)
	}
	return Frame{SrcMAC: eth.SrcMAC, DstMAC: eth.DstMAC, Src: src, Dst: dst, SrcPort: uint16(udp.SrcPort),
		TTL: ip.TTL, TOS: ip.TOS, IPID: ip.Id, Packet: p, ICRCValid: ICRC(b[ipStart:ipEnd]) == p.ICRC}, nil
}

// ErrNotRoCE says a frame is not RoCEv2 over IPv4 (UDP 4791).
var ErrNotRoCE = fmt.Errorf("wire: not a RoCEv2 frame")
