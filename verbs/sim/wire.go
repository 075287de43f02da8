package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/rdmatour/rdmatour/verbs"
)

// Wire format. Everything is big-endian, as on an InfiniBand wire.
//
// Each side opens with an 8-byte preamble: the magic "rdtsim" and a u16
// version. The connecting side sends it with its REQ; the listening side
// answers with its own only after it has read a valid one, so a stray
// client (a browser, a port scanner) gets nothing back and is dropped.
//
// Then frames: a fixed 8-byte header (kind u8, three zero bytes, body length
// u32) and a body of at most maxFrameBody bytes. Kind 1 is a CM message,
// kind 2 a transport packet.
//
//	CM body:     type u8 | qpn u32 | psn u32 | responder_resources u8 |
//	             initiator_depth u8 | retry_count u8 | rnr_retry_count u8 |
//	             flow_control u8 | reason u16 | pdlen u8 | private data
//	packet body: BTH (opcode u8 | flags u8 (bit 0 = AckReq) | dest QP u32 |
//	             PSN u32) | RETH (va u64 | rkey u32 | dma len u32) |
//	             AETH (syndrome u8 | MSN u24) | ImmDt u32 | payload
//
// Which extension headers follow the BTH is fixed by the opcode, exactly as
// in IBA, so the decoder never trusts a length field for them.
const (
	wireMagic      = "rdtsim"
	wireVersion    = 1
	preambleLen    = 8
	frameHeaderLen = 8
	kindCM         = 1
	kindPacket     = 2
	// maxFrameBody bounds what a peer can make us allocate or read: a
	// 64 KiB frame plus headers, far above an MTU-sized packet.
	maxFrameBody = 64<<10 + 64
	cmFixedLen   = 17
	bthLen       = 10
)

// CM message types (the IB CM MADs rdma_cm uses for RC).
const (
	cmREQ  = 1
	cmREP  = 2
	cmRTU  = 3
	cmREJ  = 4
	cmDREQ = 5
	cmDREP = 6
	// SIDR (RDMA_PS_UDP ids, ud_cm.go): the request carries the
	// client's QPN, the reply the server's.
	cmSIDRReq = 7
	cmSIDRRep = 8
)

var cmNames = [...]string{"?", "REQ", "REP", "RTU", "REJ", "DREQ", "DREP", "SIDR_REQ", "SIDR_REP"}

// IB CM private-data sizes: what the kernel pads received private data to.
const (
	reqPrivateDataSize = verbs.MaxConnectPrivateData
	repPrivateDataSize = verbs.MaxAcceptPrivateData
	rejPrivateDataSize = verbs.MaxRejectPrivateData
)

var errWire = errors.New("sim: malformed frame")

func preamble() []byte {
	b := make([]byte, preambleLen)
	copy(b, wireMagic)
	binary.BigEndian.PutUint16(b[6:], wireVersion)
	return b
}

// decodePreamble checks a peer's first 8 bytes.
func decodePreamble(b []byte) error {
	if len(b) != preambleLen || string(b[:6]) != wireMagic {
		return fmt.Errorf("%w: not an rdmatour simulated-NIC peer", errWire)
	}
	if v := binary.BigEndian.Uint16(b[6:]); v != wireVersion {
		return fmt.Errorf("%w: peer speaks wire version %d, we speak %d", errWire, v, wireVersion)
	}
	return nil
}

func readPreamble(r io.Reader) error {
	var b [preambleLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return err
	}
	return decodePreamble(b[:])
}

// decodeFrameHeader validates a frame header and returns kind and body length.
func decodeFrameHeader(h []byte) (kind byte, n int, err error) {
	if len(h) != frameHeaderLen {
		return 0, 0, fmt.Errorf("%w: short header", errWire)
	}
	kind = h[0]
	if kind != kindCM && kind != kindPacket && kind != kindDatagram {
		return 0, 0, fmt.Errorf("%w: unknown frame kind %d", errWire, kind)
	}
	if h[1]|h[2]|h[3] != 0 {
		return 0, 0, fmt.Errorf("%w: reserved header bits set", errWire)
	}
	l := binary.BigEndian.Uint32(h[4:])
	if l > maxFrameBody {
		return 0, 0, fmt.Errorf("%w: frame of %d bytes exceeds %d", errWire, l, maxFrameBody)
	}
	return kind, int(l), nil
}

// readFrame reads one frame into buf (len >= maxFrameBody) and returns its
// kind and body, which aliases buf.
func readFrame(r io.Reader, buf []byte) (byte, []byte, error) {
	var h [frameHeaderLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	kind, n, err := decodeFrameHeader(h[:])
	if err != nil {
		return 0, nil, err
	}
	body := buf[:n]
	if _, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return kind, body, nil
}

func putFrameHeader(b []byte, kind byte, n int) {
	b[0], b[1], b[2], b[3] = kind, 0, 0, 0
	binary.BigEndian.PutUint32(b[4:], uint32(n))
}

// cmMsg is one CM message.
type cmMsg struct {
	Type                               uint8
	QPN, PSN                           uint32
	ResponderResources, InitiatorDepth uint8
	RetryCount, RNRRetryCount          uint8
	FlowControl                        uint8
	Reason                             uint16
	PrivateData                        []byte
}

func maxPrivateData(t uint8) int {
	switch t {
	case cmREQ:
		return reqPrivateDataSize
	case cmREP:
		return repPrivateDataSize
	case cmREJ:
		return rejPrivateDataSize
	case cmSIDRReq:
		return sidrReqPrivateDataSize
	case cmSIDRRep:
		return sidrRepPrivateDataSize
	}
	return 0
}

func encodeCM(m *cmMsg) []byte {
	b := make([]byte, frameHeaderLen+cmFixedLen+len(m.PrivateData))
	putFrameHeader(b, kindCM, cmFixedLen+len(m.PrivateData))
	c := b[frameHeaderLen:]
	c[0] = m.Type
	binary.BigEndian.PutUint32(c[1:], m.QPN&0xFFFFFF)
	binary.BigEndian.PutUint32(c[5:], m.PSN&0xFFFFFF)
	c[9], c[10], c[11], c[12], c[13] = m.ResponderResources, m.InitiatorDepth, m.RetryCount, m.RNRRetryCount, m.FlowControl
	binary.BigEndian.PutUint16(c[14:], m.Reason)
	c[16] = uint8(len(m.PrivateData))
	copy(c[cmFixedLen:], m.PrivateData)
	return b
}

// decodeCM parses a CM body; the private data is copied.
func decodeCM(b []byte) (cmMsg, error) {
	var m cmMsg
	if len(b) < cmFixedLen {
		return m, fmt.Errorf("%w: CM message of %d bytes", errWire, len(b))
	}
	m.Type = b[0]
	if m.Type < cmREQ || m.Type > cmSIDRRep {
		return m, fmt.Errorf("%w: unknown CM message type %d", errWire, m.Type)
	}
	m.QPN = binary.BigEndian.Uint32(b[1:])
	m.PSN = binary.BigEndian.Uint32(b[5:])
	if m.QPN > 0xFFFFFF || m.PSN > 0xFFFFFF {
		return m, fmt.Errorf("%w: QPN/PSN wider than 24 bits", errWire)
	}
	m.ResponderResources, m.InitiatorDepth, m.RetryCount, m.RNRRetryCount, m.FlowControl = b[9], b[10], b[11], b[12], b[13]
	if m.RetryCount > 7 || m.RNRRetryCount > 7 {
		return m, fmt.Errorf("%w: retry counts are 3-bit", errWire)
	}
	m.Reason = binary.BigEndian.Uint16(b[14:])
	n := int(b[16])
	if n > maxPrivateData(m.Type) {
		return m, fmt.Errorf("%w: %d bytes of private data in %s", errWire, n, cmNames[m.Type])
	}
	if len(b) != cmFixedLen+n {
		return m, fmt.Errorf("%w: CM length mismatch", errWire)
	}
	if n > 0 {
		m.PrivateData = append([]byte(nil), b[cmFixedLen:]...)
	}
	return m, nil
}

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
	var p packet
	if len(b) < bthLen {
		return p, fmt.Errorf("%w: packet of %d bytes", errWire, len(b))
	}
	p.Opcode = b[0]
	info, ok := infoOf(p.Opcode)
	if !ok {
		return p, fmt.Errorf("%w: opcode 0x%02x is not an RC opcode", errWire, p.Opcode)
	}
	if b[1]&^1 != 0 {
		return p, fmt.Errorf("%w: unknown BTH flags 0x%02x", errWire, b[1])
	}
	p.AckReq = b[1]&1 != 0
	p.DestQP = binary.BigEndian.Uint32(b[2:])
	p.PSN = binary.BigEndian.Uint32(b[6:])
	if p.DestQP > 0xFFFFFF || p.PSN > 0xFFFFFF {
		return p, fmt.Errorf("%w: QPN/PSN wider than 24 bits", errWire)
	}
	hl := headerLen(info)
	if len(b) < hl {
		return p, fmt.Errorf("%w: %s truncated", errWire, verbs.OpcodeName(p.Opcode))
	}
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
	pl := b[o:]
	switch info.payload {
	case 0:
		if len(pl) != 0 {
			return p, fmt.Errorf("%w: %s carries no payload", errWire, verbs.OpcodeName(p.Opcode))
		}
	case 1:
		// One path MTU; which one is the receiving QP's to check.
		if verbs.MTUEnum(len(pl)) == 0 {
			return p, fmt.Errorf("%w: %s payload must be one MTU", errWire, verbs.OpcodeName(p.Opcode))
		}
	default:
		if len(pl) > maxMTU {
			return p, fmt.Errorf("%w: payload larger than the MTU", errWire)
		}
	}
	if len(pl) > 0 {
		p.Payload = pl
	}
	return p, nil
}

// psnAdd and psnDiff do 24-bit PSN arithmetic.
func psnAdd(a uint32, n int) uint32 { return (a + uint32(n)) & 0xFFFFFF }

// psnDiff is a-b as a signed 24-bit distance.
func psnDiff(a, b uint32) int { return int(int32((a-b)<<8) >> 8) }
