package sim

// A message's packets as one queued item. A 64 KiB WRITE is 64 packets
// at the 1024-byte path MTU; queued one by one they cost an allocation,
// a lock and a wake-up each. Queued as a run, the writer builds them
// as it encodes them, from a copy of what the WR fixed when it was
// posted: nothing the requester changes later is read.

import "github.com/rdmatour/rdmatour/verbs"

// msgRun is packets from..to-1 of a SEND or RDMA WRITE.
type msgRun struct {
	write, imm       bool
	destQP, firstPSN uint32
	npkts, goodPkts  int
	length, pmtu     int
	remoteAddr       uint64
	rkey, immData    uint32
	segs             []memSeg
	from, to         int
	// ackBase is the packet this transmission started at: rxe's AckReq
	// count (reqAckEvery) starts there, as the packet before it ended a
	// message.
	ackBase int
}

// reqAckEvery is how often rxe's requester asks for an ACK inside a long
// message: init_req_packet sets AckReq on a message's last packet "||
// (qp->req.noack_pkts++ > RXE_MAX_PKT_PER_ACK)" (rxe_req.c; 64 in
// rxe_param.h) and zeroes the count whenever it sets it, so on every
// 66th packet since the last one that asked. The last packet of a
// message always asks, so each message counts from its first packet,
// and a go-back-N from the first one it resends (req_retry leaves the
// count alone, and the requester had sent the end of a message before
// it). Measured: TestRxeAckReqEvery66 (a 200-packet WRITE moves
// sent_pkts by 204: the WRITE and ACKs to packets 65, 131, 197 and 199).
//
// What the sim does not model: rxe's requester also stops while more
// than RXE_MAX_UNACKED_PSNS (128) PSNs are unacknowledged (rxe_req.c
// rxe_requester, "qp->req.wait_psn = 1"), and goes on when an ACK
// moves comp.psn (measured between two guests: scripts/qemu/rxe-window.sh);
// the sim sends a whole queue at once unless Options.RxeWindow
// (window.go, and there what the window costs).
const reqAckEvery = 66

// runOf is w's packets from from on, as the requester sends them now:
// the first transmission's run is the WQE's own (a WQE outlives what it
// queued: it leaves the send queue only when acknowledged); a
// retransmission's is new, as the first may still wait in the queue.
func (q *qp) runOf(w *sendWQE, from, to int, again bool) *msgRun {
	r := &w.run
	if again || from > 0 {
		r = new(msgRun)
	}
	wr := &w.wr
	*r = msgRun{
		write:    wr.Opcode == verbs.WRRDMAWrite || wr.Opcode == verbs.WRRDMAWriteWithImm,
		imm:      wr.Opcode == verbs.WRRDMAWriteWithImm || wr.Opcode == verbs.WRSendWithImm,
		destQP:   q.destQPN,
		firstPSN: w.firstPSN, npkts: w.npkts, goodPkts: w.goodPkts,
		length: w.length, pmtu: q.pmtu,
		remoteAddr: wr.RemoteAddr, rkey: wr.RKey, immData: wr.ImmData,
		segs: w.segs, from: from, to: to, ackBase: w.ackBase,
	}
	return r
}

// fill makes pk packet i of the message: its opcode, whether it asks
// for an ACK, the RETH on the first of a WRITE, the ImmDt on the last,
// and its slice of the WR's memory.
func (r *msgRun) fill(pk *packet, i int) {
	first, last := i == 0, i == r.npkts-1
	*pk = packet{Opcode: messageOpcode(first, last, r.write, r.imm), AckReq: r.asksACK(i),
		DestQP: r.destQP, PSN: psnAdd(r.firstPSN, i)}
	if first && r.write {
		pk.HasRETH = true
		pk.RETH = verbs.RETH{VA: r.remoteAddr, RKey: r.rkey, DMALen: uint32(r.length)}
	}
	if last && r.imm {
		pk.HasImm, pk.Imm = true, r.immData
	}
	off := i * r.pmtu
	if n := min(r.pmtu, r.length-off); n > 0 {
		pk.setPayload(r.segs, off, n)
	}
}

// asksACK says whether packet i sets AckReq: the message's last, the
// last before a late local fault (localfault.go), or rxe's every
// reqAckEvery-th.
func (r *msgRun) asksACK(i int) bool {
	return i == r.npkts-1 || i == r.goodPkts-1 || (i-r.ackBase)%reqAckEvery == reqAckEvery-1
}

// writeChunk is how much the writer encodes before it writes: a long
// queue or a large message does not build one huge buffer (a payload is
// only referenced, so the buffer holds headers, but a pcap copies), and
// the peer's ACKs for one chunk can come back while the next is written.
// Against the ACKs' return, fewer, larger writes: a window of 16 64 KiB
// WRITEs (BenchmarkWriteTwoProcesses, medians of 5-7 interleaved runs,
// 2026-12-07) took 32.8 µs a WRITE with 256 KiB chunks, 29.9 with 384,
// 27.6 with 512, 33.2 with 1 MiB (the whole window in one write: nothing
// comes back until it is all written) and 34.1 with 4 MiB.
const writeChunk = 512 << 10

// encodeRun adds a run's packets to out, traced and tapped as they go
// out, and writes out whenever it holds a chunk. The payload is the
// MR's bytes themselves (wireOut), unless a pcap wants a copy of each.
func (c *conn) encodeRun(out *wireOut, it *outItem) error {
	if c.asRunFrames(it) {
		return c.encodeRunFrames(out, it)
	}
	r, from := it.run, c.sender(it.srcQP)
	var pk packet
	for i := r.from; i < r.to; i++ {
		r.fill(&pk, i)
		out.buf = appendPacketHeader(out.buf, &pk, pk.segLen)
		if c.tap == nil {
			for _, s := range pk.segs {
				out.ref(s.m.buf[s.off : s.off+s.n])
			}
		} else {
			start := len(out.buf)
			out.buf = appendSegs(out.buf, pk.segs)
			c.tap.packet(&pk, out.buf[start:], true)
		}
		c.p.dev.trace(&pk, true, it.srcQP, traceMark{again: it.again, qp: from, at: c.batchAt})
		if err := out.flushFull(c.nc); err != nil {
			return err
		}
	}
	return nil
}

// encodeRunFaulted hands a run's packets one by one to --wire, which
// counts, drops, holds and repeats packets, not messages.
func (c *conn) encodeRunFaulted(out *wireOut, it *outItem, f *wireFaults) error {
	r := it.run
	for i := r.from; i < r.to; i++ {
		pk := new(packet)
		r.fill(pk, i)
		out.buf = c.encodeFaulted(out.buf, &outItem{srcQP: it.srcQP, pkt: pk, again: it.again}, f)
		if err := out.flushFull(c.nc); err != nil {
			return err
		}
	}
	return nil
}
