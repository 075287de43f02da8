package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Packet is one InfiniBand transport packet: the BTH, the extension
// headers its opcode calls for, the payload, and the ICRC.
type Packet struct {
	BTH          BTH
	DETH         *DETH
	RETH         *RETH
	AtomicETH    *AtomicETH
	AETH         *AETH
	AtomicAckETH *AtomicAckETH
	ImmDt        *uint32
	IETH         *uint32 // the rkey a SEND_WITH_INVALIDATE invalidates
	Payload      []byte
	// ICRC is the invariant CRC as found on the wire (decoding) or as
	// computed over the whole frame (Frame.Encode).
	ICRC uint32
}

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("wire: malformed packet")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// headerLen is the length of the BTH and the extension headers the
// opcode calls for.
func headerLen(op Opcode) int {
	n := BTHLen
	for _, h := range []struct {
		flag, len int
	}{{hasDETH, DETHLen}, {hasRETH, RETHLen}, {hasAtomicETH, AtomicETHLen}, {hasAETH, AETHLen},
		{hasAtomicAckETH, AtomicAckETHLen}, {hasImmDt, ImmDtLen}, {hasIETH, IETHLen}} {
		if op.has(h.flag) {
			n += h.len
		}
	}
	return n
}

// Len is the packet's length on the wire, pad and ICRC included.
func (p *Packet) Len() int {
	return headerLen(p.BTH.Opcode) + len(p.Payload) + pad(len(p.Payload)) + ICRCLen
}

// pad is how many bytes bring a payload to a multiple of four.
func pad(n int) int { return (4 - n%4) % 4 }

// Marshal encodes the packet; the last four bytes hold p.ICRC as it is
// (Frame.Encode computes it). The BTH's PadCount is set from the payload.
// A header the opcode calls for but p lacks is an error, as is one it
// does not call for.
func (p *Packet) Marshal() ([]byte, error) {
	op := p.BTH.Opcode
	if !op.Known() {
		return nil, malformed("unknown opcode 0x%02x", uint8(op))
	}
	if err := p.checkHeaders(); err != nil {
		return nil, err
	}
	if len(p.Payload) > 0 && !op.has(hasPayload) {
		return nil, malformed("%s carries no payload", op)
	}
	b := make([]byte, p.Len())
	bth := p.BTH
	bth.PadCount = uint8(pad(len(p.Payload)))
	bth.put(b)
	off := p.putExtensions(b, BTHLen)
	copy(b[off:], p.Payload)
	binary.LittleEndian.PutUint32(b[len(b)-ICRCLen:], p.ICRC)
	return b, nil
}

func (p *Packet) checkHeaders() error {
	op := p.BTH.Opcode
	for _, h := range []struct {
		name    string
		flag    int
		present bool
	}{{"DETH", hasDETH, p.DETH != nil}, {"RETH", hasRETH, p.RETH != nil},
		{"AtomicETH", hasAtomicETH, p.AtomicETH != nil}, {"AETH", hasAETH, p.AETH != nil},
		{"AtomicAckETH", hasAtomicAckETH, p.AtomicAckETH != nil}, {"ImmDt", hasImmDt, p.ImmDt != nil},
		{"IETH", hasIETH, p.IETH != nil}} {
		if op.has(h.flag) != h.present {
			if h.present {
				return malformed("%s has no %s", op, h.name)
			}
			return malformed("%s needs a %s", op, h.name)
		}
	}
	return nil
}

// putExtensions writes the extension headers in wire order from off and
// returns the offset after them.
func (p *Packet) putExtensions(b []byte, off int) int {
	be := binary.BigEndian
	if d := p.DETH; d != nil {
		be.PutUint32(b[off:], d.QKey)
		put24(b[off+5:], d.SrcQP)
		off += DETHLen
	}
	if r := p.RETH; r != nil {
		be.PutUint64(b[off:], r.VA)
		be.PutUint32(b[off+8:], r.RKey)
		be.PutUint32(b[off+12:], r.DMALen)
		off += RETHLen
	}
	if a := p.AtomicETH; a != nil {
		be.PutUint64(b[off:], a.VA)
		be.PutUint32(b[off+8:], a.RKey)
		be.PutUint64(b[off+12:], a.SwapAdd)
		be.PutUint64(b[off+20:], a.Compare)
		off += AtomicETHLen
	}
	if a := p.AETH; a != nil {
		b[off] = uint8(a.Syndrome)
		put24(b[off+1:], a.MSN)
		off += AETHLen
	}
	if a := p.AtomicAckETH; a != nil {
		be.PutUint64(b[off:], a.OrigData)
		off += AtomicAckETHLen
	}
	if p.ImmDt != nil {
		be.PutUint32(b[off:], *p.ImmDt)
		off += ImmDtLen
	}
	if p.IETH != nil {
		be.PutUint32(b[off:], *p.IETH)
		off += IETHLen
	}
	return off
}

// DecodePacket decodes an InfiniBand transport packet, from the BTH to the
// ICRC inclusive. It does not check the ICRC (that needs the IP and UDP
// headers: see DecodeFrame).
func DecodePacket(b []byte) (Packet, error) {
	if len(b) < BTHLen+ICRCLen {
		return Packet{}, malformed("%d bytes is shorter than a BTH and an ICRC", len(b))
	}
	p := Packet{BTH: decodeBTH(b)}
	op := p.BTH.Opcode
	if !op.Known() {
		return Packet{}, malformed("unknown opcode 0x%02x", uint8(op))
	}
	hl := headerLen(op)
	if len(b) < hl+ICRCLen {
		return Packet{}, malformed("%s needs %d header bytes, the packet has %d", op, hl, len(b)-ICRCLen)
	}
	p.getExtensions(b, BTHLen)
	payload := len(b) - hl - ICRCLen - int(p.BTH.PadCount)
	if payload < 0 {
		return Packet{}, malformed("pad count %d is longer than the payload", p.BTH.PadCount)
	}
	if (payload+int(p.BTH.PadCount))%4 != 0 {
		return Packet{}, malformed("payload and pad (%d + %d bytes) are not a multiple of four", payload, p.BTH.PadCount)
	}
	if payload > 0 && !op.has(hasPayload) {
		return Packet{}, malformed("%s carries no payload, but %d bytes follow its headers", op, payload)
	}
	if payload > 0 {
		p.Payload = append([]byte(nil), b[hl:hl+payload]...)
	}
	p.ICRC = binary.LittleEndian.Uint32(b[len(b)-ICRCLen:])
	return p, nil
}

func (p *Packet) getExtensions(b []byte, off int) {
	be := binary.BigEndian
	op := p.BTH.Opcode
	if op.has(hasDETH) {
		p.DETH = &DETH{QKey: be.Uint32(b[off:]), SrcQP: get24(b[off+5:])}
		off += DETHLen
	}
	if op.has(hasRETH) {
		p.RETH = &RETH{VA: be.Uint64(b[off:]), RKey: be.Uint32(b[off+8:]), DMALen: be.Uint32(b[off+12:])}
		off += RETHLen
	}
	if op.has(hasAtomicETH) {
		p.AtomicETH = &AtomicETH{VA: be.Uint64(b[off:]), RKey: be.Uint32(b[off+8:]),
			SwapAdd: be.Uint64(b[off+12:]), Compare: be.Uint64(b[off+20:])}
		off += AtomicETHLen
	}
	if op.has(hasAETH) {
		p.AETH = &AETH{Syndrome: Syndrome(b[off]), MSN: get24(b[off+1:])}
		off += AETHLen
	}
	if op.has(hasAtomicAckETH) {
		p.AtomicAckETH = &AtomicAckETH{OrigData: be.Uint64(b[off:])}
		off += AtomicAckETHLen
	}
	if op.has(hasImmDt) {
		v := be.Uint32(b[off:])
		p.ImmDt = &v
		off += ImmDtLen
	}
	if op.has(hasIETH) {
		v := be.Uint32(b[off:])
		p.IETH = &v
	}
}

// Summary is one line in the style of Wireshark's info column:
// "RC RDMA_WRITE_ONLY QP=0x000011 PSN=3 A va=0x7f.. rkey=0x6d0 len=42".
func (p *Packet) Summary() string {
	s := fmt.Sprintf("%s QP=0x%06x PSN=%d", p.BTH.Opcode, p.BTH.DestQP, p.BTH.PSN)
	if p.BTH.AckReq {
		s += " A"
	}
	if r := p.RETH; r != nil {
		s += fmt.Sprintf(" va=0x%x rkey=0x%x len=%d", r.VA, r.RKey, r.DMALen)
	}
	if a := p.AtomicETH; a != nil {
		s += fmt.Sprintf(" va=0x%x rkey=0x%x swap_add=%d compare=%d", a.VA, a.RKey, a.SwapAdd, a.Compare)
	}
	if a := p.AETH; a != nil {
		s += fmt.Sprintf(" %s MSN=%d", a.Syndrome, a.MSN)
	}
	if a := p.AtomicAckETH; a != nil {
		s += fmt.Sprintf(" orig=%d", a.OrigData)
	}
	if p.ImmDt != nil {
		s += fmt.Sprintf(" imm=0x%08x", *p.ImmDt)
	}
	if len(p.Payload) > 0 {
		s += fmt.Sprintf(" payload=%d", len(p.Payload))
	}
	return s
}
