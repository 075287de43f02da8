package workshop

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// fakeID is a connect request's id that knows only its peer's address.
type fakeID struct {
	verbs.CMID
	peer netip.AddrPort
}

func (f *fakeID) PeerAddr() netip.AddrPort { return f.peer }

func requestFrom(addr string, port uint16) verbs.CMEvent {
	return verbs.CMEvent{Type: verbs.EventConnectRequest, ID: &fakeID{peer: netip.AddrPortFrom(netip.MustParseAddr(addr), port)}}
}

// fullRoom is a room of max seats, each held by a half-open handshake
// from the address froms[i], the first the oldest.
func fullRoom(t *testing.T, max int, froms ...string) *Room {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r := &Room{cfg: Config{MaxAttendees: max, HandshakeTimeout: time.Minute}, ctx: ctx, byID: map[verbs.CMID]*Attendee{}}
	start := time.Now()
	for i, from := range froms {
		ev := requestFrom(from, uint16(40000+i))
		a := &Attendee{N: i + 1, Addr: ev.ID.PeerAddr(), phase: PhaseConnecting, arrived: start.Add(time.Duration(i) * time.Millisecond)}
		a.handshake, a.endHandshake = r.handshakeContext()
		t.Cleanup(func() { a.endHandshake(nil) })
		r.byID[ev.ID] = a
	}
	return r
}

// TestFullRoomReclaimsHalfOpenSeats (hostile review W15): one address
// holding every seat with handshakes it never finishes gives its oldest
// up to a newcomer from another address, and is itself turned away with
// why; a room full of honest attendees (one handshake each) takes nobody.
func TestFullRoomReclaimsHalfOpenSeats(t *testing.T) {
	attacker := make([]string, 8)
	for i := range attacker {
		attacker[i] = "10.0.0.66"
	}
	r := fullRoom(t, 8, attacker...)
	if r.reclaimSeat(requestFrom("10.0.0.66", 50000)) {
		t.Fatal("the address holding every seat got one more")
	}
	if why := r.fullReason(requestFrom("10.0.0.66", 50000)); !strings.Contains(why, "10.0.0.66 already has 2 handshakes half open") {
		t.Errorf("reason %q: want the address's half-open handshakes named", why)
	}
	for i := range 6 { // the attacker keeps its share, 2
		if !r.reclaimSeat(requestFrom("10.0.0.7", uint16(50001+i))) {
			t.Fatalf("newcomer %d from another address was turned away", i)
		}
	}
	if r.reclaimSeat(requestFrom("10.0.0.8", 50010)) {
		t.Error("the attacker lost more than it holds over its share")
	}
	cut := 0
	for _, a := range r.byID {
		if err := a.handshakeEnd(); err != nil {
			cut++
			if !strings.Contains(err.Error(), "seat went to a newcomer") || a.N > 6 {
				t.Errorf("#%d cut short: %v; want the oldest six, for a newcomer", a.N, err)
			}
		}
	}
	if cut != 6 {
		t.Errorf("%d handshakes cut short, want 6", cut)
	}

	honest := fullRoom(t, 8, "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6", "10.0.0.7", "10.0.0.8")
	if honest.reclaimSeat(requestFrom("10.0.0.9", 50000)) {
		t.Error("a full room of honest attendees gave a seat away")
	}
	if why := honest.fullReason(requestFrom("10.0.0.9", 50000)); why != "server full: 8 attendees" {
		t.Errorf("reason %q", why)
	}
}
