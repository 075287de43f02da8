package pcapview

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/rdmatour/rdmatour/wire"
)

// Packet is one RoCEv2 frame of a capture.
type Packet struct {
	Frame    int // 1-based record number in the file, as Wireshark counts
	Time     time.Time
	Src, Dst netip.Addr
	// Cut is how many bytes of the frame the capture left out (its snap
	// length); 0 when the whole frame was captured.
	Cut int
	// IB is the transport packet; meaningful only when Err is nil.
	IB wire.Packet
	// CM is the connection-manager message when IB is a MAD to QP 1
	// that decodes as one; MAD says it is a MAD to QP 1 at all, and
	// MADHead holds its header (class, attribute) when it decodes.
	CM      wire.CMMessage
	MAD     bool
	MADHead *wire.MAD
	// BadICRC: an Ethernet/IPv4 frame whose ICRC does not match its
	// bytes (the only kind wire checks).
	BadICRC bool
	// Err says why the UDP 4791 payload did not decode.
	Err error
}

// add decodes one record of link type lt: a RoCEv2 packet is appended
// to c.Packets, anything else counted in c.Other.
func (c *Capture) add(frame []byte, ci gopacket.CaptureInfo, lt layers.LinkType) {
	pk := gopacket.NewPacket(frame, lt, gopacket.DecodeOptions{NoCopy: true, Lazy: true})
	src, dst, ok := addresses(pk)
	udp, _ := pk.Layer(layers.LayerTypeUDP).(*layers.UDP)
	if !ok || udp == nil || udp.DstPort != wire.RoCEv2Port {
		c.Other[otherKind(pk, udp)]++
		if lt == layers.LinkTypeEthernet && pk.Layer(layers.LayerTypeTCP) != nil {
			c.tcp = append(c.tcp, append([]byte(nil), frame...)) // an iWARP connection's, perhaps
		}
		return
	}
	p := Packet{Frame: c.Frames, Time: ci.Timestamp, Src: src, Dst: dst, Cut: ci.Length - ci.CaptureLength}
	p.IB, p.Err = wire.DecodePacket(udp.Payload)
	if p.Err == nil && p.IB.DETH != nil && p.IB.BTH.DestQP == 1 {
		p.MAD = true
		if m, err := wire.DecodeMAD(p.IB.Payload); err == nil {
			p.MADHead = &m
			p.CM, _ = wire.DecodeCM(m)
		}
	}
	if lt == layers.LinkTypeEthernet && p.Err == nil && p.Cut == 0 && p.Src.Is4() {
		if fr, err := wire.DecodeFrame(frame); err == nil {
			p.BadICRC = !fr.ICRCValid
		}
	}
	c.Packets = append(c.Packets, p)
}

// addresses are the frame's IP source and destination (IPv4 or IPv6).
func addresses(pk gopacket.Packet) (src, dst netip.Addr, ok bool) {
	if ip, _ := pk.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ip != nil {
		src, _ = netip.AddrFromSlice(ip.SrcIP.To4())
		dst, _ = netip.AddrFromSlice(ip.DstIP.To4())
		return src, dst, true
	}
	if ip, _ := pk.Layer(layers.LayerTypeIPv6).(*layers.IPv6); ip != nil {
		src, _ = netip.AddrFromSlice(ip.SrcIP)
		dst, _ = netip.AddrFromSlice(ip.DstIP)
		return src.Unmap(), dst.Unmap(), true
	}
	return src, dst, false
}

// roceV1EtherType carries RoCE v1 (IB headers straight over Ethernet).
const roceV1EtherType = 0x8915

// otherKind names a frame that is not RoCEv2, for the "not RoCE" count.
func otherKind(pk gopacket.Packet, udp *layers.UDP) string {
	if udp != nil {
		return fmt.Sprintf("UDP port %d", udp.DstPort)
	}
	if eth, _ := pk.Layer(layers.LayerTypeEthernet).(*layers.Ethernet); eth != nil && eth.EthernetType == roceV1EtherType {
		return "RoCE v1 (EtherType 0x8915; this reader decodes RoCE v2 only)"
	}
	for _, l := range []gopacket.LayerType{layers.LayerTypeTCP, layers.LayerTypeICMPv4, layers.LayerTypeICMPv6,
		layers.LayerTypeARP, layers.LayerTypeIPv4, layers.LayerTypeIPv6} {
		if pk.Layer(l) != nil {
			return l.String()
		}
	}
	return "other"
}
