package wire

import (
	"encoding/binary"
	"fmt"
)

// Header lengths on the wire.
const (
	BTHLen          = 12
	DETHLen         = 8
	RETHLen         = 16
	AtomicETHLen    = 28
	AETHLen         = 4
	AtomicAckETHLen = 8
	ImmDtLen        = 4
	IETHLen         = 4
	ICRCLen         = 4
)

// BTH is the base transport header every packet starts with.
type BTH struct {
	Opcode         Opcode
	SolicitedEvent bool
	MigReq         bool
	PadCount       uint8 // 0..3 bytes of pad after the payload
	TVer           uint8 // transport header version, 0
	PKey           uint16
	FECN, BECN     bool   // congestion notification (RoCEv2 uses ECN in IP instead)
	DestQP         uint32 // 24 bits
	AckReq         bool
	PSN            uint32 // 24 bits
}

func (h BTH) put(b []byte) {
	b[0] = uint8(h.Opcode)
	b[1] = boolBit(h.SolicitedEvent, 7) | boolBit(h.MigReq, 6) | (h.PadCount&3)<<4 | h.TVer&0xf
	binary.BigEndian.PutUint16(b[2:], h.PKey)
	b[4] = boolBit(h.FECN, 7) | boolBit(h.BECN, 6)
	put24(b[5:], h.DestQP)
	b[8] = boolBit(h.AckReq, 7)
	put24(b[9:], h.PSN)
}

func decodeBTH(b []byte) BTH {
	return BTH{
		Opcode:         Opcode(b[0]),
		SolicitedEvent: b[1]&0x80 != 0,
		MigReq:         b[1]&0x40 != 0,
		PadCount:       b[1] >> 4 & 3,
		TVer:           b[1] & 0xf,
		PKey:           binary.BigEndian.Uint16(b[2:]),
		FECN:           b[4]&0x80 != 0,
		BECN:           b[4]&0x40 != 0,
		DestQP:         get24(b[5:]),
		AckReq:         b[8]&0x80 != 0,
		PSN:            get24(b[9:]),
	}
}

// DETH is the datagram extended transport header of UD packets.
type DETH struct {
	QKey  uint32
	SrcQP uint32 // 24 bits
}

// RETH is the RDMA extended transport header: where a WRITE lands or a
// READ reads, and how much.
type RETH struct {
	VA     uint64
	RKey   uint32
	DMALen uint32
}

// AtomicETH carries an atomic operation's target and operands.
type AtomicETH struct {
	VA      uint64
	RKey    uint32
	SwapAdd uint64 // the value to add (FETCH_ADD) or to swap in (COMPARE_SWAP)
	Compare uint64 // COMPARE_SWAP only
}

// AETH is the ACK extended transport header: the syndrome says ACK, RNR
// NAK or NAK (IBA 9.7.5.2.2), MSN counts completed requests.
type AETH struct {
	Syndrome Syndrome
	MSN      uint32 // 24 bits
}

// Syndrome is the AETH's first byte.
type Syndrome uint8

// Syndromes: the top three bits give the kind.
const (
	SyndromeACK          Syndrome = 0x1F // ACK with credit field "invalid"
	SyndromeRNRNAK       Syndrome = 0x20 // | 5-bit RNR timer
	SyndromeNAKPSNSeqErr Syndrome = 0x60
	SyndromeNAKInvReq    Syndrome = 0x61
	SyndromeNAKRemAccess Syndrome = 0x62
	SyndromeNAKRemOpErr  Syndrome = 0x63
	SyndromeNAKInvRDReq  Syndrome = 0x64
)

// Kind is "ACK", "RNR NAK", "NAK" or "reserved".
func (s Syndrome) Kind() string {
	switch s >> 5 {
	case 0:
		return "ACK"
	case 1:
		return "RNR NAK"
	case 3:
		return "NAK"
	}
	return "reserved"
}

func (s Syndrome) String() string {
	switch s >> 5 {
	case 0:
		return "ACK"
	case 1:
		return fmt.Sprintf("RNR NAK (timer %d)", s&0x1f)
	case 3:
		switch s {
		case SyndromeNAKPSNSeqErr:
			return "NAK PSN sequence error"
		case SyndromeNAKInvReq:
			return "NAK invalid request"
		case SyndromeNAKRemAccess:
			return "NAK remote access error"
		case SyndromeNAKRemOpErr:
			return "NAK remote operational error"
		case SyndromeNAKInvRDReq:
			return "NAK invalid RD request"
		}
	}
	return fmt.Sprintf("syndrome 0x%02x", uint8(s))
}

// AtomicAckETH returns the value the target held before the atomic.
type AtomicAckETH struct {
	OrigData uint64
}

func boolBit(v bool, bit uint) uint8 {
	if v {
		return 1 << bit
	}
	return 0
}

func put24(b []byte, v uint32) {
	b[0], b[1], b[2] = byte(v>>16), byte(v>>8), byte(v)
}

func get24(b []byte) uint32 {
	return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2])
}
