package sim

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// perPacketRing is the trace as it was before runs were kept whole: a
// record per packet, numbered, the newest window of them kept. The ring
// must answer every query as it does.
type perPacketRing struct {
	window int
	recs   []verbs.Packet
}

func (r *perPacketRing) add(rec verbs.Packet) {
	rec.Seq = uint64(len(r.recs) + 1)
	r.recs = append(r.recs, rec)
}

func (r *perPacketRing) addRun(run *msgRun, from, to int, out bool, local uint32, mark traceMark) {
	var pk packet
	for i := from; i < to; i++ {
		run.fill(&pk, i)
		r.add(record(&pk, out, local, &mark))
	}
}

func (r *perPacketRing) since(after uint64) []verbs.Packet {
	first := int(after) // index of Seq after+1
	if n := len(r.recs); n-r.window > first {
		first = n - r.window
	}
	if first >= len(r.recs) {
		return nil
	}
	return append([]verbs.Packet(nil), r.recs[first:]...)
}

// traceStep is one thing traced: a packet, or packets from..to-1 of a
// WRITE of npkts packets.
type traceStep struct {
	single          bool
	npkts, from, to int
}

func (s traceStep) apply(t *traceRing, ref *perPacketRing, i int) {
	at := time.Unix(1700000000, int64(i)*1000)
	if s.single {
		pk := packet{Opcode: verbs.OpAcknowledge, DestQP: 0x22, PSN: uint32(i), HasAETH: true,
			AETH: verbs.AETH{Syndrome: verbs.SyndromeACK, MSN: uint32(i)}, Payload: []byte("kept?")}
		mark := traceMark{at: at, lost: i%4 == 0}
		t.add(&pk, i%2 == 0, 0x11, mark)
		pk.Payload = nil
		pk.segLen = 5 // the payload's length, as the ring keeps it
		ref.add(record(&pk, i%2 == 0, 0x11, &mark))
		return
	}
	r := &msgRun{write: true, destQP: 0x22, firstPSN: uint32(100 * i), npkts: s.npkts, length: s.npkts*1024 - 100,
		pmtu: 1024, remoteAddr: 0x7f0000001000, rkey: 0x1234, from: s.from, to: s.to}
	mark := traceMark{at: at, again: i%3 == 0}
	t.addRun(r, s.from, s.to, i%2 == 1, 0x11, mark)
	ref.addRun(r, s.from, s.to, i%2 == 1, 0x11, mark)
}

func TestTraceRingAnswersAsPerPacket(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window int
		steps  []traceStep
	}{
		{"empty", 4, nil},
		{"packets within the window", 8, []traceStep{{single: true}, {single: true}}},
		{"packets past the window", 3, []traceStep{{single: true}, {single: true}, {single: true}, {single: true}, {single: true}}},
		{"one run within the window", 16, []traceStep{{npkts: 4, from: 0, to: 4}}},
		{"a run larger than the window", 8, []traceStep{{npkts: 64, from: 0, to: 64}}},
		{"a run continued in two frames", 100, []traceStep{{npkts: 70, from: 0, to: 64}, {npkts: 70, from: 64, to: 70}}},
		{"runs and packets interleaved past the window", 10, []traceStep{
			{npkts: 4, from: 0, to: 4}, {single: true}, {npkts: 3, from: 0, to: 3}, {single: true},
			{npkts: 7, from: 0, to: 7}, {single: true}, {single: true}, {npkts: 2, from: 0, to: 2}}},
		{"window of one", 1, []traceStep{{npkts: 4, from: 0, to: 4}, {single: true}, {npkts: 2, from: 0, to: 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ring := newTraceRing(tc.window)
			ref := &perPacketRing{window: tc.window}
			for i, s := range tc.steps {
				s.apply(&ring, ref, i)
			}
			for after := uint64(0); after <= ring.seq+1; after++ {
				if got, want := ring.since(after), ref.since(after); !reflect.DeepEqual(got, want) {
					t.Fatalf("since(%d):\n got  %d packets %+v\n want %d packets %+v", after, len(got), got, len(want), want)
				}
			}
		})
	}
}

// The same over random mixes, each query after each step.
func TestTraceRingRandomMixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for round := range 200 {
		window := 1 + rng.IntN(40)
		ring := newTraceRing(window)
		ref := &perPacketRing{window: window}
		for i := range 30 {
			s := traceStep{single: rng.IntN(3) == 0}
			if !s.single {
				s.npkts = 2 + rng.IntN(80)
				s.from = rng.IntN(s.npkts)
				s.to = s.from + 1 + rng.IntN(s.npkts-s.from)
			}
			s.apply(&ring, ref, i)
			after := uint64(rng.IntN(int(ring.seq) + 2))
			if got, want := ring.since(after), ref.since(after); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d step %d window %d since(%d): got %d packets, want %d", round, i, window, after, len(got), len(want))
			}
			if ring.count > window+1 || ring.packets < min(window, int(ring.seq)) {
				t.Fatalf("round %d: %d entries covering %d packets for a window of %d", round, ring.count, ring.packets, window)
			}
		}
	}
}

// BenchmarkTraceRun64: tracing a 64-packet run, what each side of a
// 64 KiB WRITE pays.
func BenchmarkTraceRun64(b *testing.B) {
	ring := newTraceRing(512)
	r := &msgRun{write: true, destQP: 0x22, npkts: 64, length: 64 << 10, pmtu: 1024, to: 64}
	mark := traceMark{at: time.Now()}
	b.ReportAllocs()
	for b.Loop() {
		ring.addRun(r, 0, 64, true, 0x11, mark)
	}
}
