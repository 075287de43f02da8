package sim

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// The memory property: whatever a peer sends, the only registered bytes
// that may change are those a valid request targets — the range of a
// WRITE whose rkey, PD, access and bounds all check out, and the posted
// RECV buffers for SENDs. Every other byte of every MR, and the peer's own
// packet buffers (Go memory the sim only reads), stay as they were.

// memRig is a responder QP with four MRs filled with a pattern: target
// (remote read/write), guard (local only), recv (RECV buffers), foreign
// (remote write, but in another PD).
type memRig struct {
	p                            *Provider
	pd, otherPD                  *pd
	cq                           verbs.CQ
	q                            *qp
	c                            *conn
	peerEnd                      net.Conn
	target, guard, recv, foreign verbs.MR
	allowed                      map[verbs.MR][]memSeg // byte ranges a valid request may write
	before                       map[verbs.MR][]byte
}

// recvSlots are the RECV buffers posted in the recv MR: [off, off+64).
var recvSlots = []int{16, 200, 400}

func newMemRig(t testing.TB) *memRig {
	r := &memRig{p: New(Options{}), allowed: map[verbs.MR][]memSeg{}, before: map[verbs.MR][]byte{}}
	d := r.p.dev
	pdv, _ := d.AllocPD()
	other, _ := d.AllocPD()
	r.pd, r.otherPD = pdv.(*pd), other.(*pd)
	reg := func(p *pd, n int, acc verbs.Access) verbs.MR {
		m, err := p.RegMR(n, acc)
		must(t, err)
		fill := bytes.Repeat([]byte{0xA5, 0x5A, 0xC3}, n/3+1)[:n]
		must(t, m.Write(0, fill))
		r.before[m] = fill
		return m
	}
	r.target = reg(r.pd, 2*activeMTU+300, verbs.AccessLocalWrite|verbs.AccessRemoteWrite|verbs.AccessRemoteRead)
	r.guard = reg(r.pd, 600, verbs.AccessLocalWrite)
	r.recv = reg(r.pd, 600, verbs.AccessLocalWrite)
	r.foreign = reg(r.otherPD, 600, verbs.AccessLocalWrite|verbs.AccessRemoteWrite)
	for _, off := range recvSlots {
		r.allowed[r.recv] = append(r.allowed[r.recv], memSeg{off: off, n: 64})
	}
	r.cq, _ = d.CreateCQ(256)
	a, b := net.Pipe()
	r.peerEnd = b
	go io.Copy(io.Discard, b)
	r.c = newConn(r.p, a, connIn{})
	r.freshQP(t)
	return r
}

// freshQP replaces the QP (the previous one went to ERR, which makes it
// ignore everything after) so a sequence keeps reaching the checks.
func (r *memRig) freshQP(t testing.TB) {
	if r.q != nil {
		r.q.destroy()
	}
	q, err := newQP(r.p.dev, r.pd, verbs.QPInitAttr{SendCQ: r.cq, RecvCQ: r.cq, Type: verbs.QPTRC,
		Cap: verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 2}}, "rdma_create_qp", false)
	must(t, err)
	q.toRTR(r.c, 0x22, 0, 1, 1)
	q.toRTS(7, 7, 1)
	for i, off := range recvSlots {
		must(t, q.PostRecv(verbs.RecvWR{WRID: uint64(i), SGList: sge(r.recv, off, 64)}))
	}
	r.q = q
}

func (r *memRig) close() {
	r.q.destroy()
	r.c.abort()
	r.peerEnd.Close()
}

// genPacket makes one request a hostile peer might send: any request
// opcode (mostly ones that start a message, so sequences get past the
// opcode checks), a PSN near the expected one, an rkey of any MR or none,
// an address near an MR's edges or anywhere, and a length that fits, just
// does not, or is absurd.
func (r *memRig) genPacket(rng *rand.Rand) packet {
	ops := []uint8{verbs.OpRDMAWriteOnly, verbs.OpRDMAWriteOnly, verbs.OpRDMAWriteOnly, verbs.OpRDMAWriteOnlyWithImm,
		verbs.OpRDMAWriteFirst, verbs.OpRDMAWriteMiddle, verbs.OpRDMAWriteLast, verbs.OpRDMAWriteLastWithImm,
		verbs.OpSendOnly, verbs.OpSendOnly, verbs.OpSendOnlyWithImm, verbs.OpSendFirst, verbs.OpSendMiddle,
		verbs.OpSendLast, verbs.OpSendLastWithImm, verbs.OpRDMAReadRequest, verbs.OpRDMAReadRequest, verbs.OpAcknowledge}
	pk := packet{Opcode: ops[rng.IntN(len(ops))], AckReq: rng.IntN(2) == 0, DestQP: r.q.num}
	r.q.mu.Lock()
	pk.PSN = r.q.rqPSN
	r.q.mu.Unlock()
	if rng.IntN(8) == 0 {
		pk.PSN = psnAdd(pk.PSN, rng.IntN(5)-2)
	}
	info, _ := infoOf(pk.Opcode)
	if info.reth {
		mrs := []verbs.MR{r.target, r.target, r.target, r.guard, r.recv, r.foreign}
		m := mrs[rng.IntN(len(mrs))]
		off := rng.IntN(m.Len() + 1)
		if rng.IntN(6) == 0 {
			off -= rng.IntN(16) + 1 // just below the MR
		}
		// Up to 8 bytes past the end, so edges are probed.
		n := rng.IntN(max(m.Len()-off, 0) + 9)
		pk.HasRETH = true
		pk.RETH = verbs.RETH{RKey: m.RKey(), VA: m.Addr() + uint64(int64(off)), DMALen: uint32(n)}
		switch rng.IntN(12) {
		case 0:
			pk.RETH.RKey = rng.Uint32()
		case 1:
			pk.RETH.VA = rng.Uint64()
		case 2:
			pk.RETH.DMALen = rng.Uint32()
		}
	}
	if info.aeth {
		pk.HasAETH, pk.AETH = true, verbs.AETH{Syndrome: uint8(rng.IntN(256)), MSN: rng.Uint32() & 0xFFFFFF}
	}
	if info.imm {
		pk.HasImm, pk.Imm = true, rng.Uint32()
	}
	n := 0
	switch info.payload {
	case 1:
		n = activeMTU
	case 2:
		n = rng.IntN(100)
		if pk.HasRETH && pk.RETH.DMALen <= activeMTU && rng.IntN(5) != 0 {
			n = int(pk.RETH.DMALen) // a WRITE ONLY whose payload matches its RETH
		}
	}
	if n > 0 {
		pk.Payload = make([]byte, n)
		for i := range pk.Payload {
			pk.Payload[i] = byte(rng.Uint32())
		}
	}
	return pk
}

// note records the range a packet may legitimately write: a WRITE's RETH
// range when it lies inside a remotely writable MR of the QP's PD.
func (r *memRig) note(pk *packet) {
	if !pk.HasRETH || pk.Opcode == verbs.OpRDMAReadRequest {
		return
	}
	for _, m := range []verbs.MR{r.target, r.guard, r.recv, r.foreign} {
		ok := m.RKey() == pk.RETH.RKey && m.Access()&verbs.AccessRemoteWrite != 0 && m != r.foreign &&
			pk.RETH.VA >= m.Addr() && pk.RETH.VA-m.Addr() <= uint64(m.Len()) && uint64(pk.RETH.DMALen) <= uint64(m.Len())-(pk.RETH.VA-m.Addr())
		if ok {
			r.allowed[m] = append(r.allowed[m], memSeg{off: int(pk.RETH.VA - m.Addr()), n: int(pk.RETH.DMALen)})
		}
	}
}

// run feeds n packets from rng and checks the property.
func (r *memRig) run(t testing.TB, rng *rand.Rand, n int) {
	for range n {
		pk := r.genPacket(rng)
		r.note(&pk)
		sent := append([]byte(nil), pk.Payload...)
		r.q.receive(r.c, &pk)
		if !bytes.Equal(sent, pk.Payload) {
			t.Fatalf("the sim wrote into the peer's packet buffer (%s)", verbs.OpcodeName(pk.Opcode))
		}
		r.cq.Poll(256)
		if st := qpStateOf(r.q); st == verbs.QPSErr {
			r.freshQP(t)
		}
	}
	for m, before := range r.before {
		now, err := m.Read(0, m.Len())
		must(t, err)
		for i := range now {
			if now[i] != before[i] && !inSegs(r.allowed[m], i) {
				t.Fatalf("MR %#x (%s) byte %d changed (%#x -> %#x) outside every range a valid request targets", m.RKey(), m.Access(), i, before[i], now[i])
			}
		}
	}
}

func qpStateOf(q *qp) verbs.QPState {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.state
}

func inSegs(segs []memSeg, i int) bool {
	for _, s := range segs {
		if i >= s.off && i < s.off+s.n {
			return true
		}
	}
	return false
}

func TestResponderMemoryProperty(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 20
	}
	for seed := range seeds {
		r := newMemRig(t)
		r.run(t, rand.New(rand.NewPCG(uint64(seed), 0x5eed)), 80)
		r.close()
	}
}

// byteSource is a rand.Source that reads the fuzzer's bytes, so the
// fuzzer steers the generator; once they run out it carries on with a PCG
// (a constant source would make rand's rejection sampling spin forever).
type byteSource struct {
	b    []byte
	rest *rand.PCG
}

func (s *byteSource) Uint64() uint64 {
	if len(s.b) == 0 {
		return s.rest.Uint64()
	}
	var v [8]byte
	n := copy(v[:], s.b)
	s.b = s.b[n:]
	return binary.LittleEndian.Uint64(v[:])
}

func FuzzResponderMemory(f *testing.F) {
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{7, 200, 13, 0, 255, 1, 99, 42}, 40))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newMemRig(t)
		defer r.close()
		r.run(t, rand.New(&byteSource{b: b, rest: rand.NewPCG(uint64(len(b)), 1)}), 1+len(b)/16)
	})
}
