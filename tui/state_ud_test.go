package tui

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// udDemo is a demo model of the ud tour on the simulated NIC.
func udDemo(t *testing.T, tour steps.TourKind, lang text.Lang) *model {
	t.Helper()
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), freePort(t))
	srv, err := steps.NewSession(steps.Config{Role: steps.Server, Provider: sim.New(sim.Options{}), Tour: tour, Bind: addr, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cli, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}), Tour: tour, Server: addr, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(); cli.Close() })
	return newTestModel(t, []steps.Runner{srv, cli}, lang, 160, 50)
}

func stateText(m *model, side int) string {
	return ansi.Strip(strings.Join(m.stateLines(side, 70), "\n"))
}

// The ud tour's QP section shows what UD adds: the Q_Key, no connection
// beyond RTS, and on the client the destination every SEND names — the
// server QP's number and Q_Key and the address handle.
func TestStateUD(t *testing.T) {
	m := udDemo(t, steps.TourUD, text.EN)
	runUntil(t, m, 1, "ud-get-established")
	cli := stateText(m, 1)
	srvQPN := m.snaps[0].QP.Num
	for _, want := range []string{"qkey 0x01234567", "UD: no connection on this QP", fmt.Sprintf("remote_qpn 0x%x", srvQPN), "remote_qkey 0x01234567", "ah none"} {
		if !strings.Contains(cli, want) {
			t.Errorf("client after ESTABLISHED: no %q in\n%s", want, cli)
		}
	}
	if strings.Contains(cli, "rq_psn") {
		t.Errorf("a UD QP shows rq_psn:\n%s", cli)
	}
	runUntil(t, m, 1, "ud-create-ah")
	cli = stateText(m, 1)
	for _, want := range []string{"ah address handle", "dgid ", "sgid_index ", "hop_limit ", "flow_label "} {
		if !strings.Contains(cli, want) {
			t.Errorf("client after ibv_create_ah: no %q in\n%s", want, cli)
		}
	}
	srv := stateText(m, 0)
	if !strings.Contains(srv, "No destination yet: the SIDR request named none") || strings.Contains(srv, "remote_qpn") {
		t.Errorf("server's QP section:\n%s", srv)
	}
	// The server's answer goes where the datagram came from.
	runUntil(t, m, 0, "ud-reply")
	srv = stateText(m, 0)
	for _, want := range []string{"the answer goes to (wr.ud, from the datagram):", fmt.Sprintf("remote_qpn 0x%x", m.snaps[1].QP.Num), "ah address handle", "dgid ::ffff:127.0.0.1", "hop_limit 64"} {
		if !strings.Contains(srv, want) {
			t.Errorf("server after its answer: no %q in\n%s", want, srv)
		}
	}
}

// The glossary's Chinese words, and nothing of UD on the write tour.
func TestStateUDChineseAndWriteTourUnchanged(t *testing.T) {
	m := udDemo(t, steps.TourUD, text.ZH)
	runUntil(t, m, 1, "ud-create-ah")
	if cli := stateText(m, 1); !strings.Contains(cli, "地址句柄") || !strings.Contains(cli, "没有连接") || !strings.Contains(cli, "每个 SEND 发往（wr.ud）") {
		t.Errorf("client, zh:\n%s", cli)
	}
	w := udDemo(t, steps.TourWrite, text.EN)
	runUntil(t, w, 1, "get-established")
	for side := range 2 {
		if s := stateText(w, side); strings.Contains(s, "UD") || strings.Contains(s, "qkey") || !strings.Contains(s, "rq_psn") {
			t.Errorf("write tour, side %d:\n%s", side, s)
		}
	}
}
