package pane

import (
	"slices"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// The atomics' extension headers are decoded: where the atomic goes, its
// operands, and the original value the acknowledgement carries back.
func TestAtomicLines(t *testing.T) {
	swap := uint64(1000)
	for _, tt := range []struct {
		name string
		p    verbs.Packet
		want []string
	}{
		{"fetch-add", verbs.Packet{Opcode: verbs.OpFetchAdd, AtomicETH: &verbs.AtomicETH{VA: 0x7f00, RKey: 0x1c5, SwapAdd: 2}},
			[]string{"     AtomicETH va=0x7f00 rkey=0x1c5 add=2"}},
		{"compare-swap", verbs.Packet{Opcode: verbs.OpCompareSwap, AtomicETH: &verbs.AtomicETH{VA: 0x7f00, RKey: 0x1c5, Compare: 42, SwapAdd: 1000}},
			[]string{"     AtomicETH va=0x7f00 rkey=0x1c5 compare=42 swap=1000"}},
		{"ack", verbs.Packet{Opcode: verbs.OpAtomicAcknowledge, AtomicAck: &swap}, []string{"     AtomicAckETH orig=1000"}},
		{"write", verbs.Packet{Opcode: verbs.OpRDMAWriteOnly}, nil},
	} {
		if got := atomicLines(tt.p); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
