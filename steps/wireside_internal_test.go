package steps

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestOwnPacket: which packets are this side's, from what the device
// reports. The simulated NIC names the local QP; a capture sees only the
// BTH's destination QP, so inbound packets are ours when they are for our
// QP and outbound ones when they go to our peer's.
func TestOwnPacket(t *testing.T) {
	const ours, peer, other = 0x11, 0x22, 0x33
	s := &Session{wireView: wireView{wireQP: ours, wireDest: peer}}
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

// realNIC is the simulated NIC passing as a real one: what matters here
// is only that no packet can be seen.
type realNIC struct{ verbs.Provider }

func (realNIC) Simulated() bool { return false }

// TestNoteLandingWithoutPackets: on a real device whose packets cannot be
// seen (both ends on one host), the server's timeline still shows the
// client's WRITE, from its data buffer changing; not where packets show
// it, not on the client (whose own snprintf changes its buffer), not
// before the connection.
func TestNoteLandingWithoutPackets(t *testing.T) {
	for _, tt := range []struct {
		name      string
		role      Role
		simulated bool
		sawWire   bool
		connected bool
		want      bool
	}{
		{"real, one host: server notes it", Server, false, false, true, true},
		{"packets seen: they say it", Server, false, true, true, false},
		{"simulated NIC: packets say it", Server, true, false, true, false},
		{"client: its own buffer", Client, false, false, true, false},
		{"not connected yet", Server, false, false, false, false},
	} {
		var p verbs.Provider = sim.New(sim.Options{})
		if !tt.simulated {
			p = realNIC{p}
		}
		s := &Session{cfg: Config{Role: tt.role, Provider: p}, wireView: wireView{sawWire: tt.sawWire}, connection: connection{connected: tt.connected}}
		s.noteLanding(42, time.Now())
		got := len(s.timeline) == 1 && s.timeline[0].Label == "RDMA WRITE" && !s.timeline[0].FromServer &&
			strings.Contains(s.timeline[0].Detail, "no CPU, no completion on the server")
		if got != tt.want || (!tt.want && len(s.timeline) != 0) {
			t.Errorf("%s: timeline %+v", tt.name, s.timeline)
		}
	}
}
