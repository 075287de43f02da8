package steps

import (
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// TestOwnPacket: which packets are this side's, from what the device
// reports. The simulated NIC names the local QP; a capture sees only the
// BTH's destination QP, so inbound packets are ours when they are for our
// QP and outbound ones when they go to our peer's.
func TestOwnPacket(t *testing.T) {
	const ours, peer, other = 0x11, 0x22, 0x33
	s := &Session{wireQP: ours, wireDest: peer}
	for _, tt := range []struct {
		name string
		p    verbs.Packet
		want bool
	}{
		{"sim: sent by our QP", verbs.Packet{Outbound: true, LocalQP: ours, DestQP: peer}, true},
		{"sim: received by our QP", verbs.Packet{LocalQP: ours, DestQP: ours}, true},
		{"sim: the other side of a shared NIC sent it", verbs.Packet{Outbound: true, LocalQP: peer, DestQP: ours}, false},
		{"sim: the other side received it", verbs.Packet{LocalQP: peer, DestQP: peer}, false},
		{"capture: in, for our QP", verbs.Packet{DestQP: ours}, true},
		{"capture: in, for another QP", verbs.Packet{DestQP: other}, false},
		{"capture: out, to our peer", verbs.Packet{Outbound: true, DestQP: peer}, true},
		{"capture: out, to another QP", verbs.Packet{Outbound: true, DestQP: other}, false},
		{"capture: a CM MAD", verbs.Packet{CM: "REQ", DestQP: 1}, true},
	} {
		if got := s.ownPacket(tt.p); got != tt.want {
			t.Errorf("%s: ownPacket = %v, want %v", tt.name, got, tt.want)
		}
	}
	if (&Session{}).ownPacket(verbs.Packet{DestQP: ours}) {
		t.Error("a side with no QP yet claims a transport packet")
	}
}
