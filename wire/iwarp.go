package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// iWARP on the wire: a TCP byte stream that starts with the MPA Request
// and Reply frames (RFC 5044 section 7.1, with the RFC 6581 IRD/ORD
// header at the front of the private data in revision 2), then carries
// FPDUs: a 2-byte ULPDU length, the DDP header (RFC 5041) with the RDMAP
// control byte (RFC 5040) inside it, the payload, a pad to 4 bytes and
// the 4-byte MPA CRC (zero when CRC was not negotiated, siw's default).
// siw does not use MPA markers (siw_cm.c refuses them), so this decoder
// does not either. The decoder reads one direction's stream and names
// each message by its RDMAP opcode and, for an untagged one, its DDP
// queue number: 0 SENDs, 1 Read Requests, 2 Terminates.

// MPA frame keys (RFC 5044 section 7.1).
var (
	mpaReqKey = []byte("MPA ID Req Frame")
	mpaRepKey = []byte("MPA ID Rep Frame")
)

// RDMAPOpcode is the RDMAP message type in the DDP header's ULP byte.
type RDMAPOpcode uint8

// RDMAP opcodes (RFC 5040 section 4.3; 8 and up from RFC 7306).
const (
	RDMAPWrite        RDMAPOpcode = 0
	RDMAPReadRequest  RDMAPOpcode = 1
	RDMAPReadResponse RDMAPOpcode = 2
	RDMAPSend         RDMAPOpcode = 3
	RDMAPSendInv      RDMAPOpcode = 4
	RDMAPSendSE       RDMAPOpcode = 5
	RDMAPSendSEInv    RDMAPOpcode = 6
	RDMAPTerminate    RDMAPOpcode = 7
)

var rdmapNames = map[RDMAPOpcode]string{
	RDMAPWrite: "RDMA Write", RDMAPReadRequest: "RDMA Read Request", RDMAPReadResponse: "RDMA Read Response",
	RDMAPSend: "Send", RDMAPSendInv: "Send with Invalidate", RDMAPSendSE: "Send with Solicited Event",
	RDMAPSendSEInv: "Send with SE and Invalidate", RDMAPTerminate: "Terminate",
}

func (o RDMAPOpcode) String() string {
	if n, ok := rdmapNames[o]; ok {
		return n
	}
	return fmt.Sprintf("RDMAP opcode %d", uint8(o))
}

// IWARPMessage is one MPA frame or one FPDU of a stream.
type IWARPMessage struct {
	// MPA is "Request" or "Reply" for the connection's first frames
	// (then Rev, Flags and PrivateData are set), "" for an FPDU.
	MPA         string
	Rev         uint8
	CRC, Reject bool   // the MPA frame's C and R bits
	PrivateData []byte // after the revision 2 IRD/ORD header
	// The FPDU's DDP and RDMAP fields.
	Tagged, Last bool
	Opcode       RDMAPOpcode
	STag         uint32 // tagged: the buffer's STag (an rkey)
	TO           uint64 // tagged: the offset (the remote address)
	QN, MSN, MO  uint32 // untagged: queue number, message sequence, offset
	Payload      []byte
}

// Summary is the message in one line, as a wire view lists it.
func (m IWARPMessage) Summary() string {
	switch {
	case m.MPA != "":
		s := fmt.Sprintf("MPA %s rev %d, %d B private data", m.MPA, m.Rev, len(m.PrivateData))
		if m.Reject {
			s += ", rejected"
		}
		return s
	case m.Tagged:
		return fmt.Sprintf("%s STag 0x%x TO 0x%x, %d B%s", m.Opcode, m.STag, m.TO, len(m.Payload), lastMark(m.Last))
	case m.Opcode == RDMAPReadRequest && len(m.Payload) >= 28:
		p := m.Payload
		return fmt.Sprintf("%s QN %d MSN %d: %d B from STag 0x%x TO 0x%x into STag 0x%x TO 0x%x", m.Opcode, m.QN, m.MSN,
			binary.BigEndian.Uint32(p[12:]), binary.BigEndian.Uint32(p[16:]), binary.BigEndian.Uint64(p[20:]),
			binary.BigEndian.Uint32(p[0:]), binary.BigEndian.Uint64(p[4:]))
	}
	return fmt.Sprintf("%s QN %d MSN %d MO %d, %d B%s", m.Opcode, m.QN, m.MSN, m.MO, len(m.Payload), lastMark(m.Last))
}

func lastMark(last bool) string {
	if last {
		return ", last"
	}
	return ""
}

// DecodeIWARPStream decodes one direction of an iWARP TCP connection
// from its first byte: the MPA frame, then FPDUs. It returns the
// messages and the bytes of an FPDU not yet complete at the end.
func DecodeIWARPStream(b []byte) ([]IWARPMessage, []byte, error) {
	var out []IWARPMessage
	if bytes.HasPrefix(b, mpaReqKey) || bytes.HasPrefix(b, mpaRepKey) {
		m, n, err := decodeMPAFrame(b)
		if err != nil {
			return nil, b, err
		}
		out, b = append(out, m), b[n:]
	}
	for len(b) >= 2 {
		ulpdu := int(binary.BigEndian.Uint16(b))
		total := 2 + ulpdu + pad(2+ulpdu) + 4 // length, ULPDU, pad, CRC
		if len(b) < total {
			break
		}
		m, err := decodeDDP(b[2 : 2+ulpdu])
		if err != nil {
			return out, b, err
		}
		out, b = append(out, m), b[total:]
	}
	return out, b, nil
}

func decodeMPAFrame(b []byte) (IWARPMessage, int, error) {
	if len(b) < 20 {
		return IWARPMessage{}, 0, malformed("MPA frame of %d bytes", len(b))
	}
	m := IWARPMessage{MPA: "Request", CRC: b[16]&0x40 != 0, Reject: b[16]&0x20 != 0, Rev: b[17]}
	if bytes.HasPrefix(b, mpaRepKey) {
		m.MPA = "Reply"
	}
	n := 20 + int(binary.BigEndian.Uint16(b[18:]))
	if len(b) < n {
		return IWARPMessage{}, 0, malformed("MPA frame says %d bytes of private data, has %d", n-20, len(b)-20)
	}
	m.PrivateData = b[20:n]
	if m.Rev == 2 && len(m.PrivateData) >= 4 {
		m.PrivateData = m.PrivateData[4:] // RFC 6581: IRD and ORD
	}
	return m, n, nil
}

func decodeDDP(u []byte) (IWARPMessage, error) {
	if len(u) < 2 {
		return IWARPMessage{}, malformed("DDP segment of %d bytes", len(u))
	}
	m := IWARPMessage{Tagged: u[0]&0x80 != 0, Last: u[0]&0x40 != 0, Opcode: RDMAPOpcode(u[1] & 0x0f)}
	if m.Tagged {
		if len(u) < 14 {
			return IWARPMessage{}, malformed("tagged DDP segment of %d bytes", len(u))
		}
		m.STag, m.TO, m.Payload = binary.BigEndian.Uint32(u[2:]), binary.BigEndian.Uint64(u[6:]), u[14:]
		return m, nil
	}
	if len(u) < 18 {
		return IWARPMessage{}, malformed("untagged DDP segment of %d bytes", len(u))
	}
	m.QN, m.MSN, m.MO, m.Payload = binary.BigEndian.Uint32(u[6:]), binary.BigEndian.Uint32(u[10:]), binary.BigEndian.Uint32(u[14:]), u[18:]
	return m, nil
}
