package steps

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

func resultOf(out *Outcome, name string) string {
	for _, kv := range out.Results {
		if kv.Name.EN == name {
			return kv.Value.EN
		}
	}
	return ""
}

// TestUDTourOnSim runs the ud tour, both sides, in the demo's order on two
// simulated NICs: the early datagram is dropped, the second arrives behind
// a GRH, and everything is freed.
func TestUDTourOnSim(t *testing.T) {
	srvNIC, cliNIC := sim.New(sim.Options{}), sim.New(sim.Options{})
	sides, err := RunPair(context.Background(), Config{Tour: TourUD, Timeout: 10 * time.Second}, srvNIC, cliNIC)
	if err != nil {
		t.Fatal(err)
	}
	outcome := func(r Role, id StepID) *Outcome {
		s := sides[r]
		for i, st := range s.tour {
			if st.ID == id {
				if s.outcomes[i] == nil {
					t.Fatalf("%s step %s did not run", r, id)
				}
				return s.outcomes[i]
			}
		}
		t.Fatalf("%s has no step %s", r, id)
		return nil
	}
	if got := resultOf(outcome(Client, "ud-send-early"), "status"); got != verbs.WCSuccess.String() {
		t.Errorf("early send status %q, want success", got)
	}
	recv := outcome(Server, "ud-poll-recv")
	if got := resultOf(recv, "message (recv_buf + 40)"); got != DefaultUDMsg {
		t.Errorf("server received %q, want %q (the early datagram must have been dropped)", got, DefaultUDMsg)
	}
	if got := resultOf(recv, "byte_len"); !strings.HasPrefix(got, "79 = 40 (GRH) + 39") {
		t.Errorf("byte_len %q", got)
	}
	if got := resultOf(recv, "GRH bytes 0-19"); got != strings.TrimSpace(strings.Repeat("00 ", 20)) {
		t.Errorf("GRH bytes 0-19: %q, want zeros", got)
	}
	reply := outcome(Server, "ud-reply")
	if got := resultOf(reply, "ah from the GRH: dgid"); got != "::ffff:127.0.0.1" {
		t.Errorf("the server's AH from the GRH: dgid %q, want the client's IPv4-mapped address", got)
	}
	if got := resultOf(reply, "hop_limit (the IPv4 TTL)"); got != "64" {
		t.Errorf("the server's AH hop_limit %q, want 64 (the datagram's TTL)", got)
	}
	answer := outcome(Client, "ud-await-reply")
	if got := resultOf(answer, "answer (recv_buf + 40)"); got != UDReplyText {
		t.Errorf("client got answer %q, want %q", got, UDReplyText)
	}
	if got := resultOf(answer, "sent again"); got != "0" {
		t.Errorf("in the demo's order the message is sent again %s times, want 0", got)
	}
	est := outcome(Client, "ud-get-established")
	if got := resultOf(est, "param.ud.qkey"); got != "0x1234567" {
		t.Errorf("param.ud.qkey %q", got)
	}
	for _, p := range []*sim.Provider{srvNIC, cliNIC} {
		if n := p.Live(); n.Total() != 0 {
			t.Errorf("live after the ud tour: %+v", n)
		}
	}
}

func TestUDConfig(t *testing.T) {
	p := sim.New(sim.Options{})
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Role: Client, Tour: TourUD, Message: strings.Repeat("x", UDMTU)}, "path MTU"},
		{Config{Role: Client, Tour: TourUD, Lesson: lessonNamed("no-recv")}, "lessons run on the write tour"},
		{Config{Role: Client, Tour: TourUD, Track: TrackManual}, "manual track"},
	} {
		tc.cfg.Provider = p
		tc.cfg.Server = netip.MustParseAddrPort("127.0.0.1:7471")
		if _, err := NewSession(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want one saying %q", tc.cfg, err, tc.want)
		}
	}
	if _, err := ParseTourKind("udp"); err == nil {
		t.Error("--tour udp accepted")
	}
	if k, err := ParseTourKind("ud"); err != nil || k != TourUD {
		t.Errorf("ParseTourKind(ud) = %v, %v", k, err)
	}
}
