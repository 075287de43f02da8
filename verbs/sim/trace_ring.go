package sim

// The trace's storage: the device's last window packets, in the order
// they were traced. A packet is kept as its record; a run frame's
// packets (runframe.go) are kept as the run and become records only when
// Packets reads them. A 64 KiB WRITE is 64 packets, and making 64
// records as it went out and 64 as it came in was a tenth of the
// data path's CPU (pprof of BenchmarkWriteTwoProcesses/64KiB, both
// processes, 2026-12-07: traceRun 3.4 µs of 28 per WRITE in the client,
// 2.9 of 34 in the server).

import (
	"sync"

	"github.com/rdmatour/rdmatour/verbs"
)

// traceEntry is one traced packet, or packets from..from+n-1 of a run.
type traceEntry struct {
	first uint64 // Seq of its first packet
	n     int
	// pk is a single packet's headers (run.npkts == 0), its payload
	// only counted: the trace keeps no read buffer or MR alive.
	pk    packet
	run   msgRun // a run's headers; segs nil, for the same reason
	from  int
	out   bool
	local uint32
	mark  traceMark // qp nil: the trace keeps no QP alive
}

// traceRing holds at least window packets (all of them, while fewer
// were traced) in entries that cover window+1 packets at most.
type traceRing struct {
	mu      sync.Mutex
	window  int
	seq     uint64 // Seq of the newest packet
	ents    []traceEntry
	head    int // index of the oldest entry
	count   int // entries in use
	packets int // packets the entries cover
}

func newTraceRing(window int) traceRing {
	return traceRing{window: window, ents: make([]traceEntry, window+1)}
}

// add appends a packet, with mark (whose time is set).
func (t *traceRing) add(pk *packet, out bool, local uint32, mark traceMark) {
	t.mu.Lock()
	e := t.push(1)
	e.pk = *pk
	e.pk.Payload, e.pk.segs, e.pk.seg1, e.pk.segLen = nil, nil, [1]memSeg{}, pk.payloadLen()
	e.run = msgRun{}
	e.out, e.local = out, local
	e.mark, e.mark.qp = mark, nil
	t.mu.Unlock()
}

// addRun appends packets from..to-1 of r, all with mark.
func (t *traceRing) addRun(r *msgRun, from, to int, out bool, local uint32, mark traceMark) {
	t.mu.Lock()
	e := t.push(to - from)
	e.pk = packet{}
	e.run, e.run.segs = *r, nil
	e.from, e.out, e.local = from, out, local
	e.mark, e.mark.qp = mark, nil
	t.mu.Unlock()
}

// push makes room for an entry of n packets and returns it, numbered.
func (t *traceRing) push(n int) *traceEntry {
	// Drop the oldest entries the window no longer needs: those whose
	// packets all lie before the newest window ones, counting these n.
	for t.count > 0 && t.packets+n-t.ents[t.head].n >= t.window {
		t.packets -= t.ents[t.head].n
		t.head = (t.head + 1) % len(t.ents)
		t.count--
	}
	e := &t.ents[(t.head+t.count)%len(t.ents)]
	t.count++
	t.packets += n
	e.first, e.n = t.seq+1, n
	t.seq += uint64(n)
	return e
}

// since returns the packets with Seq > after among the newest window,
// oldest first.
func (t *traceRing) since(after uint64) []verbs.Packet {
	t.mu.Lock()
	defer t.mu.Unlock()
	first := after + 1
	if w := uint64(t.window); t.seq >= w && first < t.seq-w+1 {
		first = t.seq - w + 1
	}
	if first > t.seq {
		return nil
	}
	out := make([]verbs.Packet, 0, t.seq-first+1)
	for i := range t.count {
		e := &t.ents[(t.head+i)%len(t.ents)]
		for k := range e.n {
			if s := e.first + uint64(k); s >= first {
				out = append(out, e.packet(k, s))
			}
		}
	}
	return out
}

// packet is the record of the entry's k-th packet, numbered seq.
func (e *traceEntry) packet(k int, seq uint64) verbs.Packet {
	pk := &e.pk
	if e.run.npkts != 0 {
		pk = new(packet)
		e.run.fill(pk, e.from+k)
	}
	mark := e.mark
	rec := record(pk, e.out, e.local, &mark)
	rec.Seq = seq
	return rec
}
