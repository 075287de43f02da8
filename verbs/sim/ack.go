package sim

import "github.com/rdmatour/rdmatour/verbs"

// ackItem is an ACK or NAK waiting in a connection's queue, by value. A
// stream of WRITEs queues one per message, and a packet allocated for
// each was 8% of the responder's CPU (pprof of BenchmarkRawClientToSimServer
// at 64 KiB, 2026-12-07, with mallocgc and the collector behind it).
type ackItem struct {
	ok          bool
	syn         uint8
	destQP, psn uint32
	msn         uint32
	// covers is how many PSNs it acknowledges that the QP's previous
	// ACK did not: the reader writes its burst's ACKs early once they
	// cover half the peer's window (conn.go ackFlushPSNs).
	covers int32
}

// packet is the ACK or NAK as the wire carries it.
func (a ackItem) packet() packet {
	return packet{Opcode: verbs.OpAcknowledge, DestQP: a.destQP, PSN: a.psn,
		HasAETH: true, AETH: verbs.AETH{Syndrome: a.syn, MSN: a.msn}}
}
