package verbs

import (
	"fmt"
	"time"
)

// InfiniBand BTH opcodes for the RC transport (IBA vol. 1, table 38).
const (
	OpSendFirst            uint8 = 0x00
	OpSendMiddle           uint8 = 0x01
	OpSendLast             uint8 = 0x02
	OpSendLastWithImm      uint8 = 0x03
	OpSendOnly             uint8 = 0x04
	OpSendOnlyWithImm      uint8 = 0x05
	OpRDMAWriteFirst       uint8 = 0x06
	OpRDMAWriteMiddle      uint8 = 0x07
	OpRDMAWriteLast        uint8 = 0x08
	OpRDMAWriteLastWithImm uint8 = 0x09
	OpRDMAWriteOnly        uint8 = 0x0A
	OpRDMAWriteOnlyWithImm uint8 = 0x0B
	OpRDMAReadRequest      uint8 = 0x0C
	OpRDMAReadRespFirst    uint8 = 0x0D
	OpRDMAReadRespMiddle   uint8 = 0x0E
	OpRDMAReadRespLast     uint8 = 0x0F
	OpRDMAReadRespOnly     uint8 = 0x10
	OpAcknowledge          uint8 = 0x11
	OpAtomicAcknowledge    uint8 = 0x12
	OpCompareSwap          uint8 = 0x13
	OpFetchAdd             uint8 = 0x14
)

// OpcodeName is the IBA name of an RC BTH opcode, e.g. "RDMA_WRITE_ONLY".
func OpcodeName(op uint8) string {
	names := map[uint8]string{
		OpSendFirst: "SEND_FIRST", OpSendMiddle: "SEND_MIDDLE", OpSendLast: "SEND_LAST",
		OpSendLastWithImm: "SEND_LAST_WITH_IMM", OpSendOnly: "SEND_ONLY",
		OpSendOnlyWithImm: "SEND_ONLY_WITH_IMM", OpRDMAWriteFirst: "RDMA_WRITE_FIRST",
		OpRDMAWriteMiddle: "RDMA_WRITE_MIDDLE", OpRDMAWriteLast: "RDMA_WRITE_LAST",
		OpRDMAWriteLastWithImm: "RDMA_WRITE_LAST_WITH_IMM", OpRDMAWriteOnly: "RDMA_WRITE_ONLY",
		OpRDMAWriteOnlyWithImm: "RDMA_WRITE_ONLY_WITH_IMM", OpRDMAReadRequest: "RDMA_READ_REQUEST",
		OpRDMAReadRespFirst: "RDMA_READ_RESPONSE_FIRST", OpRDMAReadRespMiddle: "RDMA_READ_RESPONSE_MIDDLE",
		OpRDMAReadRespLast: "RDMA_READ_RESPONSE_LAST", OpRDMAReadRespOnly: "RDMA_READ_RESPONSE_ONLY",
		OpAcknowledge: "ACKNOWLEDGE", OpAtomicAcknowledge: "ATOMIC_ACKNOWLEDGE",
		OpCompareSwap: "COMPARE_SWAP", OpFetchAdd: "FETCH_ADD",
		OpUDSendOnly: "UD_SEND_ONLY", OpUDSendOnlyWithImm: "UD_SEND_ONLY_WITH_IMM",
	}
	if n, ok := names[op]; ok {
		return n
	}
	return fmt.Sprintf("OPCODE_0x%02X", op)
}

// AETH syndromes (IBA 9.7.5.2.2): the top 3 bits say ACK / RNR NAK / NAK.
const (
	SyndromeACK          uint8 = 0x1F // ACK, credit field "invalid" (0x1F)
	SyndromeRNRNAKBase   uint8 = 0x20 // 001 + 5-bit RNR timer
	SyndromeNAKPSNSeqErr uint8 = 0x60 // 011 00000
	SyndromeNAKInvReq    uint8 = 0x61
	SyndromeNAKRemAccess uint8 = 0x62
	SyndromeNAKRemOpErr  uint8 = 0x63
	SyndromeNAKInvRDReq  uint8 = 0x64
	syndromeKindMask     uint8 = 0xE0
	syndromeKindACK      uint8 = 0x00
	syndromeKindRNR      uint8 = 0x20
	syndromeKindNAK      uint8 = 0x60
)

// SyndromeName explains an AETH syndrome: "ACK", "RNR NAK (timer 12)",
// "NAK remote access error", ...
func SyndromeName(s uint8) string {
	switch s & syndromeKindMask {
	case syndromeKindACK:
		return "ACK"
	case syndromeKindRNR:
		return fmt.Sprintf("RNR NAK (timer %d)", s&0x1F)
	case syndromeKindNAK:
		switch s {
		case SyndromeNAKPSNSeqErr:
			return "NAK PSN sequence error"
		case SyndromeNAKInvReq:
			return "NAK invalid request"
		case SyndromeNAKRemAccess:
			return "NAK remote access error"
		case SyndromeNAKRemOpErr:
			return "NAK remote operation error"
		case SyndromeNAKInvRDReq:
			return "NAK invalid RD request"
		}
	}
	return fmt.Sprintf("syndrome 0x%02X", s)
}

// RETH is the RDMA extended transport header.
type RETH struct {
	VA     uint64
	RKey   uint32
	DMALen uint32
}

// AETH is the ACK extended transport header.
type AETH struct {
	Syndrome uint8
	MSN      uint32 // 24 bits
}

// AtomicETH is the atomic extended transport header of COMPARE_SWAP and
// FETCH_ADD: the 8-byte target and the operands.
type AtomicETH struct {
	VA      uint64
	RKey    uint32
	SwapAdd uint64 // the value stored (COMPARE_SWAP) or added (FETCH_ADD)
	Compare uint64 // COMPARE_SWAP only
}

// Packet is one InfiniBand transport packet as the simulated NIC sent or
// received it, or as a capture on a real device's netdev saw it, with its
// real header fields. The wire pane renders these.
type Packet struct {
	Seq      uint64 // monotonically increasing per device
	Time     time.Time
	Outbound bool // sent by this side
	// LocalQP is the QP of this device that sent the packet (outbound)
	// or that it is for (inbound); 0 when the device cannot tell (a
	// capture sees only the BTH's destination QP).
	LocalQP   uint32
	Opcode    uint8
	DestQP    uint32 // 24 bits
	PSN       uint32 // 24 bits
	AckReq    bool
	RETH      *RETH
	AETH      *AETH
	ImmDt     *uint32
	AtomicETH *AtomicETH
	// AtomicAck is the AtomicAckETH of an ATOMIC_ACKNOWLEDGE: the value
	// the target held before the atomic.
	AtomicAck  *uint64
	PayloadLen int
	// CM names the connection-manager message ("REQ", "REP", ...) when the
	// packet is a CM MAD to QP1 (captured on a real device); empty otherwise.
	CM string
	// Lost is a packet this side sent that never reached the peer: --wire
	// dropped it (the simulated NIC only).
	Lost bool
	// Retransmit is a request the requester sends again (go-back-N after
	// a NAK or an ACK timeout), or a READ response the responder sends
	// again for a duplicate request (the simulated NIC only).
	Retransmit bool
	// IWARP is set, and the BTH fields above are zero, for an iWARP
	// message a capture decoded from the connection's TCP stream
	// (PayloadLen is the FPDU's payload).
	IWARP *IWARP
}

// Summary is a one-line description: "SEND_ONLY psn=3 qp=0x11 len=16".
func (p Packet) Summary() string {
	if p.IWARP != nil {
		return p.IWARP.summary(p.PayloadLen)
	}
	if p.CM != "" {
		return fmt.Sprintf("CM %s (MAD to QP1)", p.CM)
	}
	s := fmt.Sprintf("%s qp=0x%06x psn=%d", OpcodeName(p.Opcode), p.DestQP, p.PSN)
	if p.AckReq {
		s += " A"
	}
	if p.RETH != nil {
		s += fmt.Sprintf(" va=0x%x rkey=0x%x len=%d", p.RETH.VA, p.RETH.RKey, p.RETH.DMALen)
	}
	if p.AETH != nil {
		s += fmt.Sprintf(" %s msn=%d", SyndromeName(p.AETH.Syndrome), p.AETH.MSN)
	}
	if p.ImmDt != nil {
		s += fmt.Sprintf(" imm=0x%08x", *p.ImmDt)
	}
	if a := p.AtomicETH; a != nil {
		s += fmt.Sprintf(" va=0x%x rkey=0x%x", a.VA, a.RKey)
		if p.Opcode == OpCompareSwap {
			s += fmt.Sprintf(" compare=%d swap=%d", a.Compare, a.SwapAdd)
		} else {
			s += fmt.Sprintf(" add=%d", a.SwapAdd)
		}
	}
	if p.AtomicAck != nil {
		s += fmt.Sprintf(" orig=%d", *p.AtomicAck)
	}
	if p.PayloadLen > 0 {
		s += fmt.Sprintf(" payload=%d", p.PayloadLen)
	}
	if p.Retransmit {
		s += " (retransmitted)"
	}
	if p.Lost {
		s += " LOST"
	}
	return s
}

// PacketTracer is implemented by devices that can show their packets (the
// simulated NIC). Packets returns the packets with Seq > after, oldest
// first; the device keeps only a bounded recent window.
type PacketTracer interface {
	Packets(after uint64) []Packet
}

// QPCounterReader is implemented by devices that count per QP (the
// simulated NIC): QPCounters returns the Counters names for one QP's
// traffic alone. Without it, counters are the port's, shared by every QP.
type QPCounterReader interface {
	QPCounters(qpNum uint32) (map[string]uint64, error)
}

// TraceState says whether a device can show the packets it exchanges.
type TraceState int

const (
	// TraceSimulated: the simulated NIC records every packet it makes.
	TraceSimulated TraceState = iota
	// TraceCapturing: a capture on the device's network interface runs.
	TraceCapturing
	// TraceNoPermission: capturing needs CAP_NET_RAW, which the process
	// lacks; Detail says how to get it.
	TraceNoPermission
	// TraceUnavailable: no capture (not started, no interface, or it
	// failed); Detail says why.
	TraceUnavailable
)

// TraceStatus is a device's TraceState with a one-line detail.
type TraceStatus struct {
	State  TraceState
	Detail string
}

// TraceStatusReporter is implemented by devices that can say why they
// show no packets.
type TraceStatusReporter interface {
	TraceStatus() TraceStatus
}
