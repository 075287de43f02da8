package sim

// Transport packets on the wire: the BTH and the extension headers its
// opcode fixes (the format is described in wire.go).

import (
	"encoding/binary"
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
)

// packet is one RC transport packet.
type packet struct {
	Opcode  uint8
	AckReq  bool
	DestQP  uint32
	PSN     uint32
	HasRETH bool
	RETH    verbs.RETH
	HasAETH bool
	AETH    verbs.AETH
	HasImm  bool
	Imm     uint32
	// AtomicETH: COMPARE_SWAP / FETCH_ADD; AtomicAck (AtomicAckETH's
	// original data): ATOMIC_ACKNOWLEDGE.
	HasAtomicETH bool
	AtomicETH    verbs.AtomicETH
	HasAtomicAck bool
	AtomicAck    uint64
	// Payload is set on decoded packets (aliasing the read buffer). Packets
	// we send instead name MR ranges in segs, copied at encode time.
	Payload []byte
	segs    []memSeg
	segLen  int
	seg1    [1]memSeg // segs' storage when the payload is one MR range
}

// setPayload points the packet at n bytes of segs from off (copied out
// of the MRs when the packet is encoded).
func (p *packet) setPayload(segs []memSeg, off, n int) {
	p.segs, p.segLen = appendSliceSegs(p.seg1[:0], segs, off, n), n
}

func (p *packet) payloadLen() int {
	if p.segs != nil || p.segLen > 0 {
		return p.segLen
	}
	return len(p.Payload)
}

// opcodeInfo says which headers an opcode carries and how its payload is
// constrained.
type opcodeInfo struct {
	reth, aeth, imm, atomicETH, atomicAck bool
	// payload: 0 = none allowed, 1 = exactly one MTU (first/middle),
	// 2 = 0..MTU (last/only)
	payload int
}

func infoOf(op uint8) (opcodeInfo, bool) {
	switch op {
	case verbs.OpSendFirst, verbs.OpSendMiddle, verbs.OpRDMAWriteMiddle:
		return opcodeInfo{payload: 1}, true
	case verbs.OpSendLast, verbs.OpSendOnly, verbs.OpRDMAWriteLast:
		return opcodeInfo{payload: 2}, true
	case verbs.OpSendLastWithImm, verbs.OpSendOnlyWithImm, verbs.OpRDMAWriteLastWithImm:
		return opcodeInfo{imm: true, payload: 2}, true
	case verbs.OpRDMAWriteFirst:
		return opcodeInfo{reth: true, payload: 1}, true
	case verbs.OpRDMAWriteOnly:
		return opcodeInfo{reth: true, payload: 2}, true
	case verbs.OpRDMAWriteOnlyWithImm:
		return opcodeInfo{reth: true, imm: true, payload: 2}, true
	case verbs.OpRDMAReadRequest:
		return opcodeInfo{reth: true}, true
	case verbs.OpRDMAReadRespFirst:
		return opcodeInfo{aeth: true, payload: 1}, true
	case verbs.OpRDMAReadRespMiddle:
		return opcodeInfo{payload: 1}, true
	case verbs.OpRDMAReadRespLast, verbs.OpRDMAReadRespOnly:
		return opcodeInfo{aeth: true, payload: 2}, true
	case verbs.OpAcknowledge:
		return opcodeInfo{aeth: true}, true
	case verbs.OpCompareSwap, verbs.OpFetchAdd:
		return opcodeInfo{atomicETH: true}, true
	case verbs.OpAtomicAcknowledge:
		return opcodeInfo{aeth: true, atomicAck: true}, true
	}
	return opcodeInfo{}, false
}

func headerLen(info opcodeInfo) int {
	n := bthLen
	if info.reth {
		n += 16
	}
	if info.aeth {
		n += 4
	}
	if info.imm {
		n += 4
	}
	if info.atomicETH {
		n += 28
	}
	if info.atomicAck {
		n += 8
	}
	return n
}

// appendPacketHeader appends the frame header and transport headers of p,
// whose payload is n bytes, to b.
func appendPacketHeader(b []byte, p *packet, n int) []byte {
	info, _ := infoOf(p.Opcode)
	hl := headerLen(info)
	var h [frameHeaderLen + bthLen + 28]byte
	putFrameHeader(h[:], kindPacket, hl+n)
	t := h[frameHeaderLen:]
	t[0] = p.Opcode
	if p.AckReq {
		t[1] = 1
	}
	binary.BigEndian.PutUint32(t[2:], p.DestQP&0xFFFFFF)
	binary.BigEndian.PutUint32(t[6:], p.PSN&0xFFFFFF)
	o := bthLen
	if info.reth {
		binary.BigEndian.PutUint64(t[o:], p.RETH.VA)
		binary.BigEndian.PutUint32(t[o+8:], p.RETH.RKey)
		binary.BigEndian.PutUint32(t[o+12:], p.RETH.DMALen)
		o += 16
	}
	if info.aeth {
		binary.BigEndian.PutUint32(t[o:], uint32(p.AETH.Syndrome)<<24|p.AETH.MSN&0xFFFFFF)
		o += 4
	}
	if info.imm {
		binary.BigEndian.PutUint32(t[o:], p.Imm)
		o += 4
	}
	if info.atomicETH {
		a := &p.AtomicETH
		binary.BigEndian.PutUint64(t[o:], a.VA)
		binary.BigEndian.PutUint32(t[o+8:], a.RKey)
		binary.BigEndian.PutUint64(t[o+12:], a.SwapAdd)
		binary.BigEndian.PutUint64(t[o+20:], a.Compare)
		o += 28
	}
	if info.atomicAck {
		binary.BigEndian.PutUint64(t[o:], p.AtomicAck)
		o += 8
	}
	return append(b, h[:frameHeaderLen+o]...)
}

// decodePacket parses a packet body. Payload aliases b.
func decodePacket(b []byte) (packet, error) {
	p, info, err := decodeBTH(b)
	if err != nil {
		return p, err
	}
	hl := headerLen(info)
	if len(b) < hl {
		return p, fmt.Errorf("%w: %s truncated", errWire, verbs.OpcodeName(p.Opcode))
	}
	pl := b[decodeExtHeaders(&p, info, b):]
	if err := checkPayload(p.Opcode, info, pl); err != nil {
		return p, err
	}
	if len(pl) > 0 {
		p.Payload = pl
	}
	return p, nil
}

// decodeBTH parses the base transport header and looks up what its
// opcode carries.
func decodeBTH(b []byte) (packet, opcodeInfo, error) {
	var p packet
	if len(b) < bthLen {
		return p, opcodeInfo{}, fmt.Errorf("%w: packet of %d bytes", errWire, len(b))
	}
	p.Opcode = b[0]
	info, ok := infoOf(p.Opcode)
	if !ok {
		return p, info, fmt.Errorf("%w: opcode 0x%02x is not an RC opcode", errWire, p.Opcode)
	}
	if b[1]&^1 != 0 {
		return p, info, fmt.Errorf("%w: unknown BTH flags 0x%02x", errWire, b[1])
	}
	p.AckReq = b[1]&1 != 0
	p.DestQP = binary.BigEndian.Uint32(b[2:])
	p.PSN = binary.BigEndian.Uint32(b[6:])
	if p.DestQP > 0xFFFFFF || p.PSN > 0xFFFFFF {
		return p, info, fmt.Errorf("%w: QPN/PSN wider than 24 bits", errWire)
	}
	return p, info, nil
}

// decodeExtHeaders parses the extension headers info names, which b is
// known to hold in full, and returns where the payload starts.
func decodeExtHeaders(p *packet, info opcodeInfo, b []byte) int {
	o := bthLen
	if info.reth {
		p.HasRETH = true
		p.RETH = verbs.RETH{
			VA:     binary.BigEndian.Uint64(b[o:]),
			RKey:   binary.BigEndian.Uint32(b[o+8:]),
			DMALen: binary.BigEndian.Uint32(b[o+12:]),
		}
		o += 16
	}
	if info.aeth {
		v := binary.BigEndian.Uint32(b[o:])
		p.HasAETH = true
		p.AETH = verbs.AETH{Syndrome: uint8(v >> 24), MSN: v & 0xFFFFFF}
		o += 4
	}
	if info.imm {
		p.HasImm = true
		p.Imm = binary.BigEndian.Uint32(b[o:])
		o += 4
	}
	if info.atomicETH {
		p.HasAtomicETH = true
		p.AtomicETH = verbs.AtomicETH{VA: binary.BigEndian.Uint64(b[o:]), RKey: binary.BigEndian.Uint32(b[o+8:]),
			SwapAdd: binary.BigEndian.Uint64(b[o+12:]), Compare: binary.BigEndian.Uint64(b[o+20:])}
		o += 28
	}
	if info.atomicAck {
		p.HasAtomicAck = true
		p.AtomicAck = binary.BigEndian.Uint64(b[o:])
		o += 8
	}
	return o
}

// checkPayload checks a payload's length against what the opcode allows.
func checkPayload(op uint8, info opcodeInfo, pl []byte) error {
	switch info.payload {
	case 0:
		if len(pl) != 0 {
			return fmt.Errorf("%w: %s carries no payload", errWire, verbs.OpcodeName(op))
		}
	case 1:
		// One path MTU; which one is the receiving QP's to check.
		if verbs.MTUEnum(len(pl)) == 0 {
			return fmt.Errorf("%w: %s payload must be one MTU", errWire, verbs.OpcodeName(op))
		}
	default:
		if len(pl) > maxMTU {
			return fmt.Errorf("%w: payload larger than the MTU", errWire)
		}
	}
	return nil
}
