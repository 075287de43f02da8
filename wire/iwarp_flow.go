package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// A live iWARP capture decodes each direction as its bytes come: an
// IWARPDecoder keeps the part of an FPDU not yet complete, and
// IWARPFlows gives every direction of every connection a reassembler and
// a decoder of its own. Each direction begins with its MPA frame (the
// client's Request, the server's Reply); bytes that do not are not taken
// for FPDUs, since nothing else says where an FPDU starts.

// IWARPFault is why a direction's decoding stopped.
type IWARPFault int

const (
	// FaultNone: decoding goes on.
	FaultNone IWARPFault = iota
	// FaultGap: TCP bytes are missing from the capture.
	FaultGap
	// FaultMalformed: an MPA frame or FPDU does not decode.
	FaultMalformed
	// FaultNotMPA: the direction does not begin with an MPA frame (not
	// iWARP, or the capture began after the connection did).
	FaultNotMPA
	// FaultTruncated: the capture ended inside an MPA frame or an FPDU.
	FaultTruncated
)

// ErrNotMPA says a direction's first bytes are no MPA frame.
var ErrNotMPA = errors.New("the stream does not begin with an MPA Request or Reply frame")

// IWARPDecoder decodes one direction of an iWARP connection, fed its
// bytes in order. The zero value is ready.
type IWARPDecoder struct {
	buf     []byte
	started bool // the MPA frame was decoded
	err     error
}

// Feed appends b and returns the messages now complete. Their payloads
// are copies. Once it returns an error it returns nothing more.
func (d *IWARPDecoder) Feed(b []byte) ([]IWARPMessage, error) {
	if d.err != nil {
		return nil, nil
	}
	d.buf = append(d.buf, b...)
	var out []IWARPMessage
	for {
		m, n, err := d.next()
		if err != nil {
			d.err, d.buf = err, nil
			return out, err
		}
		if n == 0 {
			break
		}
		m.Payload = append([]byte(nil), m.Payload...)
		m.PrivateData = append([]byte(nil), m.PrivateData...)
		out, d.buf = append(out, m), d.buf[n:]
	}
	d.buf = append(d.buf[:0:0], d.buf...) // let the consumed bytes go
	return out, nil
}

// Pending is how many bytes wait for the rest of their frame.
func (d *IWARPDecoder) Pending() int { return len(d.buf) }

// next decodes the frame at the front of buf: n is 0 while it is
// incomplete.
func (d *IWARPDecoder) next() (IWARPMessage, int, error) {
	b := d.buf
	if !d.started {
		k := min(len(b), len(mpaReqKey))
		if !bytes.HasPrefix(mpaReqKey, b[:k]) && !bytes.HasPrefix(mpaRepKey, b[:k]) {
			return IWARPMessage{}, 0, fmt.Errorf("%w (it begins %q)", ErrNotMPA, b[:min(len(b), 16)])
		}
		if len(b) < 20 || len(b) < 20+int(binary.BigEndian.Uint16(b[18:])) {
			return IWARPMessage{}, 0, nil
		}
		m, n, err := decodeMPAFrame(b)
		d.started = err == nil
		return m, n, err
	}
	if len(b) < 2 {
		return IWARPMessage{}, 0, nil
	}
	ulpdu := int(binary.BigEndian.Uint16(b))
	total := 2 + ulpdu + pad(2+ulpdu) + 4 // length, ULPDU, pad, CRC
	if len(b) < total {
		return IWARPMessage{}, 0, nil
	}
	m, err := decodeDDP(b[2 : 2+ulpdu])
	return m, total, err
}

// IWARPEvent is one message of one direction, or why that direction's
// decoding stopped (Fault set; Err says more and Msg is zero).
type IWARPEvent struct {
	From, To netip.AddrPort
	Msg      IWARPMessage
	Fault    IWARPFault
	Err      error
}

type flowKey struct{ from, to netip.AddrPort }

type iwarpFlow struct {
	r       TCPReassembler
	d       IWARPDecoder
	stopped bool
}

// maxFlows bounds the directions IWARPFlows follows: a workshop's
// attendees, two each. Past it the oldest is forgotten.
const maxFlows = 1024

// maxHeldAll bounds the bytes all directions together hold behind
// holes: segments anyone on the wire can send to the port must not grow
// the capture without bound.
const maxHeldAll = 16 << 20

// IWARPFlows follows the directions of the TCP connections a capture
// sees and decodes each as iWARP. The zero value is ready.
type IWARPFlows struct {
	flows map[flowKey]*iwarpFlow
	order []flowKey
	held  int // the sum of the directions' Held
}

// Segment takes one captured segment and returns what it completed.
func (f *IWARPFlows) Segment(seg TCPSegment) []IWARPEvent {
	k := flowKey{seg.From, seg.To}
	fl := f.flow(k)
	if fl.stopped {
		return nil
	}
	before := fl.r.Held()
	data, err := fl.r.Push(seg)
	f.held += fl.r.Held() - before
	if err == nil && f.held > maxHeldAll {
		f.held -= fl.r.Held()
		err = fl.r.GiveUp()
	}
	if err != nil {
		return f.stop(k, fl, FaultGap, err)
	}
	msgs, err := fl.d.Feed(data)
	out := make([]IWARPEvent, 0, len(msgs)+1)
	for _, m := range msgs {
		out = append(out, IWARPEvent{From: seg.From, To: seg.To, Msg: m})
	}
	switch {
	case errors.Is(err, ErrNotMPA) && fl.r.Midstream:
		err = fmt.Errorf("%w: the capture began after the connection did", err)
		fallthrough
	case errors.Is(err, ErrNotMPA):
		out = append(out, f.stop(k, fl, FaultNotMPA, err)...)
	case err != nil:
		out = append(out, f.stop(k, fl, FaultMalformed, err)...)
	}
	return out
}

// End is the capture's end: each direction still waiting behind a hole,
// or inside a frame, says so.
func (f *IWARPFlows) End() []IWARPEvent {
	var out []IWARPEvent
	for _, k := range f.order {
		fl := f.flows[k]
		if fl.stopped {
			continue
		}
		if err := fl.r.End(); err != nil {
			out = append(out, f.stop(k, fl, FaultGap, err)...)
		} else if n := fl.d.Pending(); n > 0 {
			out = append(out, f.stop(k, fl, FaultTruncated, fmt.Errorf("the capture ends %d bytes into a frame", n))...)
		}
	}
	return out
}

func (f *IWARPFlows) flow(k flowKey) *iwarpFlow {
	if fl, ok := f.flows[k]; ok {
		return fl
	}
	if f.flows == nil {
		f.flows = map[flowKey]*iwarpFlow{}
	}
	if len(f.order) >= maxFlows {
		old := f.order[0]
		f.order = f.order[1:]
		f.held -= f.flows[old].r.Held()
		delete(f.flows, old)
	}
	fl := &iwarpFlow{}
	f.flows[k], f.order = fl, append(f.order, k)
	return fl
}

func (f *IWARPFlows) stop(k flowKey, fl *iwarpFlow, why IWARPFault, err error) []IWARPEvent {
	if fl.r.Held() > 0 {
		f.held -= fl.r.Held()
		fl.r.GiveUp()
	}
	fl.stopped, fl.d = true, IWARPDecoder{}
	return []IWARPEvent{{From: k.from, To: k.to, Fault: why, Err: err}}
}
