package rdmacore

import (
	"errors"
	"os"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
)

// TestIWARPPacketSummaryIsWires: every message of the captures made on
// siw0, turned into the wire pane's packet, sums up in the words of
// wire's decoder (what `rdmatour pcap` prints of the same capture), and
// verbs names every RDMAP opcode as wire does.
func TestIWARPPacketSummaryIsWires(t *testing.T) {
	for op := 0; op < 16; op++ {
		if v, w := verbs.RDMAPName(uint8(op)), wire.RDMAPOpcode(op).String(); v != w {
			t.Errorf("opcode %d: verbs says %q, wire %q", op, v, w)
		}
	}
	n := 0
	for _, file := range []string{"siw-write.pcap", "siw-read.pcap", "siw-twohosts-write.pcap", "siw-twohosts-read.pcap"} {
		f, err := os.Open("../../wire/testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		frames, err := wire.ReadPcap(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var flows wire.IWARPFlows
		for _, fr := range frames {
			seg, err := wire.DecodeTCPSegment(fr)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range flows.Segment(seg) {
				iw := iwarpPacketOf(e)
				p := verbs.Packet{IWARP: &iw, PayloadLen: len(e.Msg.Payload)}
				if got, want := p.Summary(), e.Msg.Summary(); got != want {
					t.Errorf("%s: the pane's packet says %q, wire %q", file, got, want)
				}
				n++
			}
		}
	}
	if n < 18 {
		t.Errorf("only %d messages in the siw captures", n)
	}
	gap := iwarpPacketOf(wire.IWARPEvent{Fault: wire.FaultGap, Err: wire.ErrTCPGap})
	if gap.Fault != verbs.IWARPGap || (verbs.Packet{IWARP: &gap}).Summary() != "decoding stopped: "+wire.ErrTCPGap.Error() {
		t.Errorf("a gap: %+v", gap)
	}
	for f, want := range map[wire.IWARPFault]verbs.IWARPFault{wire.FaultMalformed: verbs.IWARPMalformed, wire.FaultNotMPA: verbs.IWARPNotMPA, wire.FaultTruncated: verbs.IWARPTruncated} {
		if got := iwarpPacketOf(wire.IWARPEvent{Fault: f, Err: errors.New("x")}); got.Fault != want {
			t.Errorf("fault %d: %d, want %d", f, got.Fault, want)
		}
	}
}
