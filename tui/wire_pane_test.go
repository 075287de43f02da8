package tui

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// TestWirePane: packets grouped under the step that caused them, CM
// messages named, and each reason for an empty list said in words.
func TestWirePane(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	write := verbs.Packet{Seq: 3, Outbound: true, Opcode: verbs.OpRDMAWriteOnly, DestQP: 0x11, PSN: 7, AckReq: true,
		RETH: &verbs.RETH{VA: 0x7f00, RKey: 0x2a4, DMALen: 42}, PayloadLen: 42}
	ack := verbs.Packet{Seq: 4, Opcode: verbs.OpAcknowledge, DestQP: 0x12, PSN: 7, AETH: &verbs.AETH{Syndrome: verbs.SyndromeACK, MSN: 1}}
	for _, tc := range []struct {
		name    string
		wire    steps.WireStatus
		packets []steps.WirePacket
		want    []string
		wantNot []string
	}{
		{"simulated, grouped by step", steps.WireStatus{State: verbs.TraceSimulated},
			[]steps.WirePacket{{Packet: verbs.Packet{Seq: 1, Outbound: true, CM: "REQ"}, Step: "create-event-channel"},
				{Packet: write, Step: "create-event-channel"}, {Packet: ack}},
			[]string{"▸ Create the CM event channel", "CM REQ", "RDMA_WRITE_ONLY qp=0x000011 psn=7 A", "rkey=0x2a4", "▸ while waiting (the peer's doing)", "AETH ACK msn=1"},
			[]string{"no packets yet"}},
		{"no CAP_NET_RAW", steps.WireStatus{State: verbs.TraceNoPermission, Detail: "capturing on eth0 needs CAP_NET_RAW: run as root, or once: sudo setcap cap_net_raw+ep /x/rdmatour"},
			nil, []string{"No capture", "setcap cap_net_raw+ep", "counters above"}, nil},
		{"one host on a real device", steps.WireStatus{State: verbs.TraceCapturing, OneHost: true},
			nil, []string{"Both ends are this machine", "loops the packets back", "two hosts"}, nil},
		{"capturing, nothing yet", steps.WireStatus{State: verbs.TraceCapturing}, nil, []string{"no packets yet"}, []string{"Both ends"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestModel(t, []steps.Runner{r.srv}, text.EN, 160, 50, "NO_COLOR=1")
			m.snaps[0].Wire, m.snaps[0].Packets = tc.wire, tc.packets
			got := strings.Join(m.wireLines(0, 150), "\n")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("wire pane lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("wire pane has %q:\n%s", w, got)
				}
			}
		})
	}
}
