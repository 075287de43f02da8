package wire

import (
	"bytes"
	"net/netip"
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
// port), one TCPStream per direction, in the order each was first seen,
// with the reassembler a live capture uses (TCPReassembler): a segment
// repeated (a retransmission) is taken once, one that came before a
// segment the sender sent earlier waits for it, and a hole that never
// fills is a Gap.
func TCPStreams(frames [][]byte, port uint16) []TCPStream {
	var out []TCPStream
	var dirs []*TCPReassembler
	index := map[flowKey]int{}
	for _, f := range frames {
		seg, err := DecodeTCPSegment(f)
		if err != nil || (port != 0 && seg.From.Port() != port && seg.To.Port() != port) {
			continue
		}
		k := flowKey{seg.From, seg.To}
		i, seen := index[k]
		if !seen {
			i = len(out)
			index[k] = i
			out = append(out, TCPStream{From: seg.From, To: seg.To})
			dirs = append(dirs, &TCPReassembler{})
		}
		data, err := dirs[i].Push(seg)
		out[i].Data = append(out[i].Data, data...)
		out[i].Gap = out[i].Gap || err != nil
	}
	for i, r := range dirs {
		out[i].Gap = out[i].Gap || r.End() != nil
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
