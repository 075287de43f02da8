package verbs

import (
	"fmt"
	"net/netip"
)

// An iWARP device (siw) has no BTH: its messages are MPA frames and
// FPDUs in the TCP byte stream of the rdma_cm connection (RFC 5044, DDP
// RFC 5041, RDMAP RFC 5040). A capture decodes them from each direction
// of the connection and gives them as Packets whose IWARP is set.

// RDMAP opcodes (RFC 5040 section 4.3), as iWARP's DDP header carries them.
const (
	RDMAPWrite        uint8 = 0
	RDMAPReadRequest  uint8 = 1
	RDMAPReadResponse uint8 = 2
	RDMAPSend         uint8 = 3
	RDMAPSendInv      uint8 = 4
	RDMAPSendSE       uint8 = 5
	RDMAPSendSEInv    uint8 = 6
	RDMAPTerminate    uint8 = 7
)

// RDMAPName names an RDMAP opcode as RFC 5040 does ("RDMA Write", "Send"):
// the words of wire's decoder (verbs/rdmacore's test holds them equal).
func RDMAPName(op uint8) string {
	names := map[uint8]string{
		RDMAPWrite: "RDMA Write", RDMAPReadRequest: "RDMA Read Request", RDMAPReadResponse: "RDMA Read Response",
		RDMAPSend: "Send", RDMAPSendInv: "Send with Invalidate", RDMAPSendSE: "Send with Solicited Event",
		RDMAPSendSEInv: "Send with SE and Invalidate", RDMAPTerminate: "Terminate",
	}
	if n, ok := names[op]; ok {
		return n
	}
	return fmt.Sprintf("RDMAP opcode %d", op)
}

// MPAFrame is which MPA start-up frame a message is.
type MPAFrame uint8

const (
	// MPANone: an FPDU, not a start-up frame.
	MPANone MPAFrame = iota
	// MPARequest: the client's first bytes, with its private data.
	MPARequest
	// MPAReply: the server's first bytes, with its private data.
	MPAReply
)

// IWARPFault is why a capture stopped decoding one direction of an
// iWARP connection.
type IWARPFault uint8

const (
	// IWARPOK: not a fault.
	IWARPOK IWARPFault = iota
	// IWARPGap: TCP bytes are missing from the capture.
	IWARPGap
	// IWARPMalformed: an MPA frame or an FPDU does not decode.
	IWARPMalformed
	// IWARPNotMPA: the bytes do not begin with an MPA frame.
	IWARPNotMPA
	// IWARPTruncated: the capture ended inside a frame.
	IWARPTruncated
)

// IWARP is one iWARP message a capture decoded: an MPA start-up frame or
// one FPDU (a DDP segment: a message larger than the TCP MSS is several,
// only the last marked Last), or the point where decoding its direction
// stopped (Fault).
type IWARP struct {
	// From and To are the TCP connection's ends, in this message's direction.
	From, To netip.AddrPort
	MPA      MPAFrame
	Rev      uint8 // MPA revision
	Reject   bool  // the MPA Reply refused the connection
	// PrivateLen is the MPA frame's private data length (after revision
	// 2's IRD/ORD).
	PrivateLen int
	Tagged     bool // a tagged DDP segment: placed at STag/TO
	Last       bool
	Opcode     uint8 // RDMAP opcode
	STag       uint32
	TO         uint64
	QN, MSN    uint32 // untagged: queue (0 Send, 1 Read Request, 2 Terminate) and message number
	MO         uint32 // untagged: the segment's offset in the message
	// Read is a Read Request's sink and source.
	Read *IWARPRead
	// Fault is set on the entry that ends a direction's decoding;
	// FaultDetail says more (English, from the decoder).
	Fault       IWARPFault
	FaultDetail string
}

// IWARPRead is what an RDMA Read Request asks (RFC 5040 section 4.4).
type IWARPRead struct {
	SinkSTag uint32
	SinkTO   uint64
	Size     uint32
	SrcSTag  uint32
	SrcTO    uint64
}

// Name names the message: "MPA Request", "RDMA Write", "Send".
func (m IWARP) Name() string {
	switch m.MPA {
	case MPARequest:
		return "MPA Request"
	case MPAReply:
		return "MPA Reply"
	}
	return RDMAPName(m.Opcode)
}

// IsResponse: an FPDU the responder's NIC sends by itself (a Read
// Response), as isResponse is for RC opcodes.
func (m IWARP) IsResponse() bool {
	return m.MPA == MPANone && m.Opcode == RDMAPReadResponse
}

// summary is the message in one line, after the opcode's name.
func (m IWARP) summary(payload int) string {
	switch {
	case m.Fault != IWARPOK:
		return "decoding stopped: " + m.FaultDetail
	case m.MPA != MPANone:
		s := fmt.Sprintf("%s rev %d, %d B private data", m.Name(), m.Rev, m.PrivateLen)
		if m.Reject {
			s += ", rejected"
		}
		return s
	case m.Read != nil:
		r := m.Read
		return fmt.Sprintf("%s QN %d MSN %d: %d B from STag 0x%x TO 0x%x into STag 0x%x TO 0x%x", m.Name(), m.QN, m.MSN,
			r.Size, r.SrcSTag, r.SrcTO, r.SinkSTag, r.SinkTO)
	}
	last := ""
	if m.Last {
		last = ", last"
	}
	if m.Tagged {
		return fmt.Sprintf("%s STag 0x%x TO 0x%x, %d B%s", m.Name(), m.STag, m.TO, payload, last)
	}
	return fmt.Sprintf("%s QN %d MSN %d MO %d, %d B%s", m.Name(), m.QN, m.MSN, m.MO, payload, last)
}
