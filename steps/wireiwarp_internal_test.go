package steps

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

var (
	iwClient = netip.MustParseAddrPort("10.0.3.2:48824")
	iwServer = netip.MustParseAddrPort("10.0.3.1:7471")
	iwOther  = netip.MustParseAddrPort("10.0.3.3:51000")
)

func iw(from, to netip.AddrPort, m verbs.IWARP) *verbs.IWARP {
	m.From, m.To = from, to
	return &m
}

// TestIWARPPacketsOfThisConnection: an iWARP message has no QP; it is
// this side's when it crossed this side's TCP connection, either way, and
// the step that caused it is the one that posted it only for a request
// (a Write, a Send, a Read Request), never for an MPA frame or a Read
// Response.
func TestIWARPPacketsOfThisConnection(t *testing.T) {
	s := &Session{wireView: wireView{wireConn: [2]netip.AddrPort{iwServer, iwClient}}}
	write := verbs.IWARP{Tagged: true, Last: true, Opcode: verbs.RDMAPWrite}
	for _, tt := range []struct {
		name            string
		p               verbs.Packet
		own, req, wired bool
	}{
		{"in: the client's Write", verbs.Packet{IWARP: iw(iwClient, iwServer, write)}, true, false, true},
		{"out: the Read Response", verbs.Packet{Outbound: true, IWARP: iw(iwServer, iwClient, verbs.IWARP{Tagged: true, Opcode: verbs.RDMAPReadResponse})}, true, false, true},
		{"out: a Send", verbs.Packet{Outbound: true, IWARP: iw(iwServer, iwClient, verbs.IWARP{Opcode: verbs.RDMAPSend})}, true, true, true},
		{"out: the MPA Reply", verbs.Packet{Outbound: true, IWARP: iw(iwServer, iwClient, verbs.IWARP{MPA: verbs.MPAReply})}, true, false, false},
		{"out: where decoding stopped", verbs.Packet{Outbound: true, IWARP: iw(iwServer, iwClient, verbs.IWARP{Fault: verbs.IWARPGap})}, true, false, false},
		{"another attendee's Write", verbs.Packet{IWARP: iw(iwOther, iwServer, write)}, false, false, true},
		{"the server's ends, crossed", verbs.Packet{IWARP: iw(iwServer, iwServer, write)}, false, false, true},
	} {
		if got := s.ownPacket(tt.p); got != tt.own {
			t.Errorf("%s: ownPacket = %v, want %v", tt.name, got, tt.own)
		}
		if got := isRequest(tt.p); got != tt.req {
			t.Errorf("%s: isRequest = %v, want %v", tt.name, got, tt.req)
		}
		if got := transportPacket(tt.p); got != tt.wired {
			t.Errorf("%s: transportPacket = %v, want %v", tt.name, got, tt.wired)
		}
	}
	if (&Session{}).ownPacket(verbs.Packet{IWARP: iw(iwClient, iwServer, write)}) {
		t.Error("a side with no connection yet claims an iWARP message")
	}
}

// TestIWARPReadsAndWritesNoted: the server counts one READ per Read
// Response message (its last segment), and a Write that arrives in
// segments is one timeline entry with all its bytes, once its last
// segment came.
func TestIWARPReadsAndWritesNoted(t *testing.T) {
	s := &Session{cfg: Config{Role: Server}, wireView: wireView{wireConn: [2]netip.AddrPort{iwServer, iwClient}}}
	now := time.Now()
	resp := func(last bool) verbs.Packet {
		return verbs.Packet{Outbound: true, PayloadLen: 1428, IWARP: iw(iwServer, iwClient, verbs.IWARP{Tagged: true, Last: last, Opcode: verbs.RDMAPReadResponse})}
	}
	for _, p := range []verbs.Packet{resp(false), resp(false), resp(true)} {
		s.answered.tally(p)
	}
	if s.answered.reads != 1 || s.answered.iwarpStopped {
		t.Errorf("three segments of one Read Response counted %d READs (stopped %v)", s.answered.reads, s.answered.iwarpStopped)
	}
	for i, last := range []bool{false, true} {
		s.noteWire(verbs.Packet{Time: now.Add(time.Duration(i) * time.Millisecond), PayloadLen: 1000 + i,
			IWARP: iw(iwClient, iwServer, verbs.IWARP{Tagged: true, Last: last, Opcode: verbs.RDMAPWrite, STag: 0x3265ca00})})
	}
	if len(s.timeline) != 1 || s.timeline[0].Label != "RDMA WRITE" || !strings.HasPrefix(s.timeline[0].Detail, "2001 B into STag 0x3265ca00") || s.timeline[0].FromServer {
		t.Errorf("timeline %+v", s.timeline)
	}
	s.answered.tally(verbs.Packet{IWARP: iw(iwClient, iwServer, verbs.IWARP{Fault: verbs.IWARPGap})})
	if !s.answered.iwarpStopped {
		t.Error("a gap in the client's direction did not stop the count")
	}
}
