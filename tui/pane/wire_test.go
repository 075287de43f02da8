package pane

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
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

// A packet the wire lost and one sent again are marked in the wire
// view, in both languages; the timeline draws the lost one crossed out,
// reaching no one, and says so.
func TestLostAndResentPackets(t *testing.T) {
	for _, tt := range []struct {
		lang       text.Lang
		lost, sent string
	}{
		{text.EN, "✗ lost on the wire", "↻ retransmitted"},
		{text.ZH, "✗ 在线上丢了", "↻ 重传"},
	} {
		in := &Input{Styles: NewStyles(true), Lang: tt.lang}
		lost := ansi.Strip(strings.Join(in.packetLines(verbs.Packet{Outbound: true, Opcode: verbs.OpRDMAWriteMiddle, PSN: 7, Lost: true}), "\n"))
		again := ansi.Strip(strings.Join(in.packetLines(verbs.Packet{Outbound: true, Opcode: verbs.OpRDMAWriteMiddle, PSN: 7, Retransmit: true}), "\n"))
		plain := ansi.Strip(strings.Join(in.packetLines(verbs.Packet{Outbound: true, Opcode: verbs.OpRDMAWriteMiddle, PSN: 7}), "\n"))
		if !strings.Contains(lost, tt.lost) || !strings.Contains(again, tt.sent) || strings.Contains(plain, "✗") || strings.Contains(plain, "↻") {
			t.Errorf("%v: lost %q, resent %q, plain %q", tt.lang, lost, again, plain)
		}
	}
	in := &Input{Styles: NewStyles(true), Lang: text.EN, Snaps: []steps.Snapshot{{Timeline: []steps.TimelineEntry{
		{FromServer: false, Label: "RDMA_WRITE_MIDDLE psn=7", Fate: steps.FateLost},
	}}}}
	got := ansi.Strip(strings.Join(in.TimelineLines(60), "\n"))
	if !strings.Contains(got, "RDMA_WRITE_MIDDLE psn=7 ✗ ┄") || strings.Contains(got, "◀") || !strings.Contains(got, "lost on the wire") {
		t.Errorf("timeline:\n%s\nwant the lost packet dashed from the client, reaching no one", got)
	}
}
