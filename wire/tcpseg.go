package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// A live capture of an iWARP device sees TCP segments one at a time, as
// each crosses the interface: DecodeTCPSegment takes one apart and a
// TCPReassembler puts one direction's payload back in order. A capture
// sees a segment the sender retransmits twice (drop the bytes already
// had, by sequence number) and, on the receiving host, a segment the wire
// lost only after the ones behind it (hold those until the hole fills).

// TCPSegment is one IPv4 TCP segment of an Ethernet frame.
type TCPSegment struct {
	From, To      netip.AddrPort
	Seq           uint32
	SYN, FIN, RST bool
	Payload       []byte
}

// ErrNotTCP is returned for a frame that is not an unfragmented IPv4 TCP
// segment.
var ErrNotTCP = errors.New("wire: not an IPv4 TCP segment")

// DecodeTCPSegment takes apart an Ethernet frame holding an IPv4 TCP
// segment. The payload ends where the IP total length says, not at the
// frame's end: a short frame is padded to Ethernet's 60 bytes.
func DecodeTCPSegment(frame []byte) (TCPSegment, error) {
	if len(frame) < 14+20 || binary.BigEndian.Uint16(frame[12:]) != 0x0800 {
		return TCPSegment{}, ErrNotTCP
	}
	ip := frame[14:]
	ihl := int(ip[0]&0x0f) * 4
	if ip[0]>>4 != 4 || ip[9] != 6 || binary.BigEndian.Uint16(ip[6:])&0x3fff != 0 {
		return TCPSegment{}, ErrNotTCP // not v4, not TCP, or a fragment
	}
	end := int(binary.BigEndian.Uint16(ip[2:]))
	if end == 0 {
		end = len(ip) // a GSO frame larger than 64 KiB (BIG TCP) says 0
	}
	if ihl < 20 || end < ihl+20 {
		return TCPSegment{}, malformed("IPv4 header length %d, total length %d", ihl, end)
	}
	if end > len(ip) {
		return TCPSegment{}, malformed("IPv4 total length %d, only %d bytes captured", end, len(ip))
	}
	tcp := ip[ihl:end]
	off := int(tcp[12]>>4) * 4
	if off < 20 || off > len(tcp) {
		return TCPSegment{}, malformed("TCP data offset %d in a %d-byte segment", off, len(tcp))
	}
	src, _ := netip.AddrFromSlice(ip[12:16])
	dst, _ := netip.AddrFromSlice(ip[16:20])
	flags := tcp[13]
	return TCPSegment{
		From:    netip.AddrPortFrom(src, binary.BigEndian.Uint16(tcp[0:])),
		To:      netip.AddrPortFrom(dst, binary.BigEndian.Uint16(tcp[2:])),
		Seq:     binary.BigEndian.Uint32(tcp[4:]),
		SYN:     flags&0x02 != 0,
		FIN:     flags&0x01 != 0,
		RST:     flags&0x04 != 0,
		Payload: tcp[off:],
	}, nil
}

// ErrTCPGap says bytes of a direction never showed in the capture: what
// follows them cannot be decoded.
var ErrTCPGap = errors.New("a TCP segment is missing from the capture")

// maxHeld bounds the out-of-order bytes a reassembler holds while it
// waits for a hole to fill: past it the hole is a gap. A hole the
// sender's retransmission fills is at most what TCP had in flight, far
// less than this on a tour's connection.
const maxHeld = 4 << 20

// TCPReassembler is one direction of a TCP connection, its payload in
// sequence order. The zero value is ready; it starts at the first
// segment it is given (its SYN, when the capture saw the connection
// open).
type TCPReassembler struct {
	started bool
	// Midstream: the first segment seen was not a SYN, so the bytes
	// begin somewhere inside the stream.
	Midstream bool
	next      uint32            // the sequence number of the next byte wanted
	held      map[uint32][]byte // segments after a hole, by sequence number
	heldBytes int
	err       error
}

// Push adds one segment and returns the bytes now in order (nil when it
// brought none: a repeat, or a segment after a hole). The error is
// ErrTCPGap, once, when the bytes held behind a hole outgrow what a
// retransmission could fill; after it, Push returns nothing.
func (r *TCPReassembler) Push(seg TCPSegment) ([]byte, error) {
	if r.err != nil {
		return nil, nil
	}
	if !r.started {
		r.started, r.next, r.Midstream = true, seg.Seq, !seg.SYN
	}
	seq := seg.Seq
	if seg.SYN {
		if seq == r.next {
			r.next++ // the SYN takes one sequence number
		}
		seq++
	}
	out := r.take(seq, seg.Payload)
	if out == nil && len(seg.Payload) > 0 && seqAfter(seq, r.next) {
		r.hold(seq, seg.Payload)
	}
	for len(r.held) > 0 && out != nil {
		more := r.unhold()
		if more == nil {
			break
		}
		out = append(out, more...)
	}
	if r.heldBytes > maxHeld {
		return out, r.GiveUp()
	}
	return out, nil
}

// Held is how many bytes wait behind a hole.
func (r *TCPReassembler) Held() int { return r.heldBytes }

// GiveUp declares the hole a gap now (IWARPFlows does when all its
// directions together hold too much): the held bytes are dropped and
// Push returns nothing more.
func (r *TCPReassembler) GiveUp() error {
	err := fmt.Errorf("%w: %d bytes arrived after byte %d, which did not", ErrTCPGap, r.heldBytes, r.next)
	r.err, r.held, r.heldBytes = ErrTCPGap, nil, 0
	return err
}

// End is what the capture's end leaves: ErrTCPGap when bytes wait behind
// a hole that never filled.
func (r *TCPReassembler) End() error {
	if r.err == nil && len(r.held) > 0 {
		r.err = ErrTCPGap
		return fmt.Errorf("%w: %d bytes arrived after byte %d, which never did", ErrTCPGap, r.heldBytes, r.next)
	}
	return nil
}

// take returns the part of data (starting at seq) not had yet, if it
// begins at or before the next byte wanted, and moves next past it.
func (r *TCPReassembler) take(seq uint32, data []byte) []byte {
	if len(data) == 0 || seqAfter(seq, r.next) {
		return nil
	}
	// int64: the distance back is at most 2^31, which int32 cannot negate.
	back := int64(r.next - seq)
	if back >= int64(len(data)) {
		return nil // all of it had already: a retransmission
	}
	fresh := append([]byte(nil), data[back:]...)
	r.next += uint32(len(fresh))
	return fresh
}

func (r *TCPReassembler) hold(seq uint32, data []byte) {
	if r.held == nil {
		r.held = map[uint32][]byte{}
	}
	if old, ok := r.held[seq]; ok && len(old) >= len(data) {
		return
	}
	r.heldBytes += len(data) - len(r.held[seq])
	r.held[seq] = append([]byte(nil), data...)
}

// unhold takes the held segment that now continues the stream, if any,
// dropping those wholly behind it.
func (r *TCPReassembler) unhold() []byte {
	for seq, data := range r.held {
		if seqAfter(seq, r.next) {
			continue
		}
		delete(r.held, seq)
		r.heldBytes -= len(data)
		if out := r.take(seq, data); out != nil {
			return out
		}
		return r.unhold()
	}
	return nil
}

// seqAfter: sequence number a comes after b (RFC 9293's modular order).
func seqAfter(a, b uint32) bool { return int32(a-b) > 0 }
