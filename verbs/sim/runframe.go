package sim

// Run frames: the packets of one RDMA WRITE in one frame (issue 24
// item 7). A 64 KiB WRITE is 64 packets at the 1024-byte path MTU; as 64
// packet frames the sender writes 128 pieces and the receiver decodes,
// locks and copies 64 times. As a run frame the headers travel once:
// the receiver rebuilds every packet's headers exactly as the sender's
// msgRun.fill made them (the same opcodes, PSNs, AckReq bits and RETH),
// traces each one, and when every packet would be taken in order it
// places the payload with one copy (runplace.go). The packets are still
// what the trace, the counters and the peer's QP see; only their
// framing on the simulated wire changes.
//
// A run goes packet by packet instead, as before, when anything may
// treat one packet differently from the next: --wire faults (they count
// packets), a pcap (it holds packets), a retransmission, a SEND or a
// WRITE_WITH_IMM (they consume a RECV), a local fault after some of the
// packets, or a single-packet message (nothing to gain).
//
//	run body: dest QP u32 | first PSN u32 (the message's) | packets u32 |
//	          from u32 | to u32 | path MTU u32 | length u32 |
//	          va u64 | rkey u32 | payload of packets from..to-1
//
// A message longer than maxRunPayload goes as several run frames; the
// ones after the first continue it, as MIDDLE packets do.

import (
	"encoding/binary"
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
)

const (
	kindRun      = 5
	runHeaderLen = 7*4 + 8 + 4
	// maxRunPayload keeps a run frame within maxFrameBody.
	maxRunPayload = 64 << 10
)

// asRunFrames says whether the writer sends it as run frames.
func (c *conn) asRunFrames(it *outItem) bool {
	r := it.run
	return c.tap == nil && !it.again && r.write && !r.imm && r.goodPkts == 0 &&
		r.ackBase == 0 && r.to-r.from > 1
}

// encodeRunFrames adds a run's packets to out as run frames, each packet
// traced as it goes out; the payload is the MR's bytes themselves.
func (c *conn) encodeRunFrames(out *wireOut, it *outItem) error {
	r, from := it.run, c.sender(it.srcQP)
	per := maxRunPayload / r.pmtu
	var segs [4]memSeg
	for i := r.from; i < r.to; i += per {
		j := min(i+per, r.to)
		n := min(j*r.pmtu, r.length) - i*r.pmtu
		out.buf = appendRunHeader(out.buf, r, i, j, n)
		for _, s := range appendSliceSegs(segs[:0], r.segs, i*r.pmtu, n) {
			out.ref(s.m.buf[s.off : s.off+s.n])
		}
		c.p.dev.traceRun(r, i, j, true, it.srcQP, traceMark{qp: from, at: c.batchAt})
		if err := out.flushFull(c.nc); err != nil {
			return err
		}
	}
	return nil
}

// appendRunHeader appends the frame header and run header of packets
// from..to-1 of r, which carry n bytes of payload.
func appendRunHeader(b []byte, r *msgRun, from, to, n int) []byte {
	var h [frameHeaderLen + runHeaderLen]byte
	putFrameHeader(h[:], kindRun, runHeaderLen+n)
	t := h[frameHeaderLen:]
	for i, v := range []uint32{r.destQP & 0xFFFFFF, r.firstPSN & 0xFFFFFF, uint32(r.npkts),
		uint32(from), uint32(to), uint32(r.pmtu), uint32(r.length)} {
		binary.BigEndian.PutUint32(t[4*i:], v)
	}
	binary.BigEndian.PutUint64(t[28:], r.remoteAddr)
	binary.BigEndian.PutUint32(t[36:], r.rkey)
	return append(b, h[:]...)
}

// decodeRunHeader parses a run header whose frame body is bodyLen bytes
// and returns the run (no MR behind it: the payload follows in the
// frame) and its payload's length. Nothing in it is trusted: a run that
// the sender's msgRun could not have made is malformed.
func decodeRunHeader(h []byte, bodyLen int) (msgRun, int, error) {
	if len(h) < runHeaderLen || bodyLen < runHeaderLen {
		return msgRun{}, 0, fmt.Errorf("%w: run frame of %d bytes", errWire, bodyLen)
	}
	u := func(i int) uint32 { return binary.BigEndian.Uint32(h[4*i:]) }
	r := msgRun{write: true, destQP: u(0), firstPSN: u(1), npkts: int(u(2)),
		from: int(u(3)), to: int(u(4)), pmtu: int(u(5)), length: int(u(6)),
		remoteAddr: binary.BigEndian.Uint64(h[28:]), rkey: binary.BigEndian.Uint32(h[36:])}
	n := bodyLen - runHeaderLen
	switch {
	case r.destQP > 0xFFFFFF || r.firstPSN > 0xFFFFFF:
		return r, 0, fmt.Errorf("%w: QPN/PSN wider than 24 bits", errWire)
	case verbs.MTUEnum(r.pmtu) == 0:
		return r, 0, fmt.Errorf("%w: run with a path MTU of %d", errWire, r.pmtu)
	case r.length > 1<<31-1 || r.npkts < 2 || r.npkts != (r.length+r.pmtu-1)/r.pmtu:
		return r, 0, fmt.Errorf("%w: a run of %d packets cannot carry %d bytes at MTU %d", errWire, r.npkts, r.length, r.pmtu)
	case r.from < 0 || r.from >= r.to || r.to > r.npkts:
		return r, 0, fmt.Errorf("%w: run of packets %d..%d of %d", errWire, r.from, r.to, r.npkts)
	case n != min(r.to*r.pmtu, r.length)-r.from*r.pmtu:
		return r, 0, fmt.Errorf("%w: run of packets %d..%d carries %d bytes", errWire, r.from, r.to, n)
	}
	return r, n, nil
}
