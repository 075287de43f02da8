package sim

// The packet trace: a bounded ring of the transport packets sim0 sent
// and received (verbs.PacketTracer).

import (
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// traceMark is what the trace says about a packet beyond its headers,
// and the QP it counts for when the caller already knows it (nil: looked
// up by number, under the device's lock).
type traceMark struct {
	lost  bool // --wire dropped it: it never reached the peer
	again bool // a retransmission
	qp    *qp
	at    time.Time // when it went out (zero: now)
}

// trace records one transport packet in the bounded ring; localQP is the
// QP of this device that sent it (outbound) or that it is for (inbound).
func (d *device) trace(pk *packet, outbound bool, localQP uint32, mark traceMark) {
	if mark.at.IsZero() {
		mark.at = time.Now()
	}
	d.countTraced(outbound, localQP, mark.qp, 1)
	d.ring.add(pk, outbound, localQP, mark)
}

// record is pk as the trace holds it.
func record(pk *packet, outbound bool, localQP uint32, mark *traceMark) verbs.Packet {
	if mark.at.IsZero() {
		mark.at = time.Now()
	}
	rec := verbs.Packet{
		Time:       mark.at,
		Outbound:   outbound,
		LocalQP:    localQP,
		Opcode:     pk.Opcode,
		DestQP:     pk.DestQP,
		PSN:        pk.PSN,
		AckReq:     pk.AckReq,
		PayloadLen: pk.payloadLen(),
		Lost:       mark.lost,
		Retransmit: mark.again,
	}
	if pk.HasRETH {
		r := pk.RETH
		rec.RETH = &r
	}
	if pk.HasAETH {
		a := pk.AETH
		rec.AETH = &a
	}
	if pk.HasImm {
		v := pk.Imm
		rec.ImmDt = &v
	}
	if pk.HasAtomicETH {
		a := pk.AtomicETH
		rec.AtomicETH = &a
	}
	if pk.HasAtomicAck {
		v := pk.AtomicAck
		rec.AtomicAck = &v
	}
	return rec
}

// countTraced moves sent_pkts or rcvd_pkts by n, on the device and on
// the QP (q, or looked up by number when nil).
func (d *device) countTraced(outbound bool, localQP uint32, q *qp, n uint64) {
	cnt := cntRcvdPkts
	if outbound {
		cnt = cntSentPkts
	}
	d.counters[cnt].Add(n)
	if q == nil {
		q = d.qpByNum(localQP)
	}
	if q != nil {
		q.counters[cnt].Add(n)
	}
}

// traceRun records packets from..to-1 of a run frame as trace records
// each of them in a frame of its own (the ring keeps the run and makes
// the records when they are read: trace_ring.go).
func (d *device) traceRun(r *msgRun, from, to int, outbound bool, localQP uint32, mark traceMark) {
	if mark.at.IsZero() {
		mark.at = time.Now()
	}
	d.countTraced(outbound, localQP, mark.qp, uint64(to-from))
	d.ring.addRun(r, from, to, outbound, localQP, mark)
}

// Packets implements verbs.PacketTracer.
func (d *device) Packets(after uint64) []verbs.Packet {
	return d.ring.since(after)
}
