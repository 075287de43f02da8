package tui

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// sharedDemo is the demo as `rdmatour demo` runs it: both sides in one
// process on one simulated NIC. The server runs to listen through the
// model; then the client is made for the port it got.
func sharedDemo(t *testing.T, lesson string, w, h int) *model {
	t.Helper()
	nic := sim.New(sim.Options{})
	srv, err := steps.NewSession(steps.Config{Role: steps.Server, Provider: nic, Lesson: lessonNamed(lesson),
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cli, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: nic, Lesson: lessonNamed(lesson),
		Server: netip.MustParseAddrPort("127.0.0.1:1"), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, []steps.Runner{srv, cli}, text.EN, w, h, "NO_COLOR=1")
	answerPredictions(t, m) // a lesson asks first
	for m.run.lastIdx < 0 || m.run.lastSide != 0 || srv.Steps()[m.run.lastIdx].ID != "listen" {
		if m.planPos > 10 || m.end.err != nil {
			t.Fatalf("server never listened: %v", m.end.err)
		}
		press(t, m, "enter")
	}
	cli.Close()
	ap, err := netip.ParseAddrPort(srv.Snapshot().CMID.Local)
	if err != nil {
		t.Fatal(err)
	}
	cli, err = steps.NewSession(steps.Config{Role: steps.Client, Provider: nic, Lesson: lessonNamed(lesson), Server: ap, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	m.sessions[1] = cli
	m.tours = nil
	m.refresh()
	answerPredictions(t, m)
	return m
}

// runUntilStep presses Enter until the step id of side has run.
func runUntilStep(t *testing.T, m *model, side int, id string) {
	t.Helper()
	for i := 0; ; i++ {
		if m.run.lastIdx >= 0 && m.run.lastSide == side && string(m.tours[side][m.run.lastIdx].ID) == id {
			return
		}
		if i > 60 || m.end.err != nil || m.planPos >= len(m.plan) {
			t.Fatalf("never reached %s: %v", id, m.end.err)
		}
		press(t, m, "enter")
	}
}

// TestDemoEachSideItsOwnWire: in the demo (one NIC for both sides) each
// side's pane lists its own packets as it saw them (the server receives
// the WRITE) and counts its own QP's traffic.
func TestDemoEachSideItsOwnWire(t *testing.T) {
	m := sharedDemo(t, "", 160, 50)
	runUntilStep(t, m, 1, "poll-write") // the WRITE and its ACK have been
	srv := ansi.Strip(strings.Join(m.wireLines(0, 100), "\n"))
	cli := ansi.Strip(strings.Join(m.wireLines(1, 100), "\n"))
	for _, c := range []struct {
		name, screen, want, not string
	}{
		{"server", srv, "← in  RDMA_WRITE_ONLY", "→ out RDMA_WRITE_ONLY"},
		{"client", cli, "→ out RDMA_WRITE_ONLY", "← in  RDMA_WRITE_ONLY"},
		{"server", srv, "→ out ACKNOWLEDGE", "← in  ACKNOWLEDGE"},
		{"client", cli, "← in  ACKNOWLEDGE", "→ out ACKNOWLEDGE"},
	} {
		if !strings.Contains(c.screen, c.want) || strings.Contains(c.screen, c.not) {
			t.Errorf("%s: want %q and no %q:\n%s", c.name, c.want, c.not, c.screen)
		}
	}
	for i, s := range []string{srv, cli} {
		if !strings.Contains(s, "Counters (this side's QP)") {
			t.Errorf("side %d: counters do not say they are this side's QP:\n%s", i, s)
		}
	}
	sc, cc := m.snaps[0].Counters, m.snaps[1].Counters
	if sc["sent_pkts"] != cc["rcvd_pkts"] || sc["rcvd_pkts"] != cc["sent_pkts"] || sc["sent_pkts"] == sc["rcvd_pkts"]+cc["rcvd_pkts"] {
		t.Errorf("counters are not each side's own: server %v, client %v", sc, cc)
	}
}

// TestDemoTimelineShowsWriteLandingAndNAK: the timeline shows the WRITE
// arriving at the server (no CPU, no completion there) and, in the
// bad-rkey lesson, the NAK the server's NIC sends back.
func TestDemoTimelineShowsWriteLandingAndNAK(t *testing.T) {
	m := sharedDemo(t, "", 160, 50)
	runUntilStep(t, m, 1, "poll-write")
	tl := ansi.Strip(strings.Join(m.timelineLines(60), "\n"))
	if !strings.Contains(tl, "RDMA WRITE") || !strings.Contains(strings.ReplaceAll(tl, "\n", " "), "no CPU, no completion on the") {
		t.Errorf("the timeline does not show the WRITE landing with no CPU:\n%s", tl)
	}
	m = sharedDemo(t, "bad-rkey", 160, 50)
	for m.planPos < len(m.plan) && m.end.err == nil {
		press(t, m, "enter")
	}
	if tl := ansi.Strip(strings.Join(m.timelineLines(60), "\n")); !strings.Contains(tl, "NAK remote access error") {
		t.Errorf("the lesson's timeline has no NAK:\n%s", tl)
	}
}

// TestTimelineDetailsInChinese: in zh the timeline's words are Chinese
// ("56 B private data" was left in English).
func TestTimelineDetailsInChinese(t *testing.T) {
	m := sharedDemo(t, "", 160, 50)
	press(t, m, "l") // 中文
	runUntilStep(t, m, 1, "get-established")
	tl := ansi.Strip(strings.Join(m.timelineLines(60), "\n"))
	if strings.Contains(tl, "B private data") || !strings.Contains(tl, "字节") {
		t.Errorf("zh timeline:\n%s", tl)
	}
}

// TestTimelineMergeOrderAndDetails: a message both ends noted is drawn
// when it was sent (the server notes the client's SEND only when it
// polls, after the client already has the ACK), and a detail that repeats
// the other end's and adds to it is shown once.
func TestTimelineMergeOrderAndDetails(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(1000+int64(s), 0) }
	srv := []steps.TimelineEntry{
		{Time: at(1), Label: "REQ", Detail: "qpn=0x17bd91, 56 B private data"},
		{Time: at(5), Label: "SEND", Detail: "RDMA_WRITE_DONE"},
	}
	cli := []steps.TimelineEntry{
		{Time: at(0), Label: "REQ", Detail: "qpn=0x17bd91"},
		{Time: at(3), Label: "SEND", Detail: "RDMA_WRITE_DONE"},
		{Time: at(4), Label: "ACK", FromServer: true, Detail: "IBV_WC_SEND"},
	}
	m := &model{snaps: []steps.Snapshot{{Timeline: srv}, {Timeline: cli}}}
	var got []string
	for _, e := range m.timeline() {
		got = append(got, e.Label+": "+e.Detail)
	}
	want := []string{"REQ: qpn=0x17bd91, 56 B private data", "SEND: RDMA_WRITE_DONE", "ACK: IBV_WC_SEND"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("merged timeline\n got %q\nwant %q", got, want)
	}
}
