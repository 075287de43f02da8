package wire

import (
	"bytes"
	"fmt"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// TCPStream is one direction of a TCP connection, its payload in order.
type TCPStream struct {
	From, To netip.AddrPort
	Data     []byte
	// Gap is set when a segment was missing from the capture: Data
	// stops before it.
	Gap bool
}

// TCPStreams reassembles the TCP connections to or from port (0: any)
// in Ethernet frames (a pcap of an iWARP tour: tcpdump on the tour's
// port), one TCPStream per direction, in the order each was first seen.
// A segment repeated (a retransmission) is taken once.
func TCPStreams(frames [][]byte, port uint16) []TCPStream {
	var out []TCPStream
	next := map[string]uint32{} // per direction: the next sequence number wanted
	index := map[string]int{}
	for _, f := range frames {
		pkt := gopacket.NewPacket(f, layers.LayerTypeEthernet, gopacket.NoCopy)
		ip, _ := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
		tcp, _ := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if ip == nil || tcp == nil || (port != 0 && uint16(tcp.SrcPort) != port && uint16(tcp.DstPort) != port) {
			continue
		}
		src, _ := netip.AddrFromSlice(ip.SrcIP.To4())
		dst, _ := netip.AddrFromSlice(ip.DstIP.To4())
		from, to := netip.AddrPortFrom(src, uint16(tcp.SrcPort)), netip.AddrPortFrom(dst, uint16(tcp.DstPort))
		key := fmt.Sprint(from, ">", to)
		i, seen := index[key]
		if !seen {
			i = len(out)
			index[key] = i
			out = append(out, TCPStream{From: from, To: to})
			next[key] = tcp.Seq
		}
		if tcp.SYN {
			next[key] = tcp.Seq + 1
			continue
		}
		data := tcp.Payload
		if len(data) == 0 || out[i].Gap {
			continue
		}
		// int64: -d of the most negative int32 stays positive.
		switch d := int64(int32(tcp.Seq - next[key])); {
		case d > 0:
			out[i].Gap = true
			continue
		case -d >= int64(len(data)):
			continue // all of it seen already
		default:
			data = data[-d:]
		}
		out[i].Data = append(out[i].Data, data...)
		next[key] += uint32(len(data))
	}
	return out
}

// IWARPStreams is the directions of the TCP connections in frames that
// begin with an MPA Request or Reply frame: the iWARP connections of a
// capture, on whatever port they use.
func IWARPStreams(frames [][]byte) []TCPStream {
	var out []TCPStream
	for _, s := range TCPStreams(frames, 0) {
		if bytes.HasPrefix(s.Data, mpaReqKey) || bytes.HasPrefix(s.Data, mpaRepKey) {
			out = append(out, s)
		}
	}
	return out
}
