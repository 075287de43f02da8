package sim

import (
	"bufio"
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
// kind 2 a transport packet, kind 5 a run of one WRITE's packets
// (runframe.go).
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
	wireMagic = "rdtsim"
	// wireVersion 2 added run frames: a version 1 peer would drop the
	// connection on the first one, so it is told at the preamble instead.
	wireVersion    = 2
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
	if kind != kindCM && kind != kindPacket && kind != kindDatagram && kind != kindImpaired && kind != kindRun {
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

// A connection's buffers, per connection and so per attendee in a
// workshop room: 200 attendees held 256 KiB of read buffer, 256 KiB of
// write buffer and a 64 KiB frame each (BenchmarkRoom200InRoom). A frame
// is an MTU's packet at most, but for a rare large one, which readFrame
// reads into a buffer of its own; a burst's frames queued in the read
// buffer keep ACKs coalesced (frameReady), which 32 KiB of frames does.
const (
	connReadBuffer = 32 << 10
	frameBuffer    = 8 << 10
)

// readFrame reads one frame into buf and returns its kind and body,
// which aliases buf, or a buffer of its own when buf is too small.
func readFrame(r io.Reader, buf []byte) (byte, []byte, error) {
	var h [frameHeaderLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	kind, n, err := decodeFrameHeader(h[:])
	if err != nil {
		return 0, nil, err
	}
	if n > len(buf) {
		buf = make([]byte, n)
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

// peekFrame is readFrame for the connection's reader: a frame that fits
// in br's buffer is left there and its body aliases it (no copy), and
// the caller discards n bytes once it is done with the body; a larger
// frame is read into buf (or a buffer of its own), n = 0. Of a run
// frame only the headers are peeked: body is them, frame header included,
// and readRun reads the payload.
func peekFrame(br *bufio.Reader, buf []byte) (kind byte, body []byte, n int, err error) {
	h, err := br.Peek(frameHeaderLen)
	if err != nil {
		if errors.Is(err, io.EOF) && len(h) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, 0, err
	}
	kind, l, err := decodeFrameHeader(h)
	if err != nil {
		return 0, nil, 0, err
	}
	if kind == kindRun {
		return peekRunHeader(br, l)
	}
	if frameHeaderLen+l > br.Size() {
		kind, body, err = readFrame(br, buf)
		return kind, body, 0, err
	}
	f, err := br.Peek(frameHeaderLen + l)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, 0, err
	}
	return kind, f[frameHeaderLen:], len(f), nil
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
