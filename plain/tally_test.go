package plain

import (
	"bytes"
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestPlainPredictionVerdictAndTally: a wrong pick is marked ✗ with what
// it would have meant and what happened instead; the end counts the
// predictions.
func TestPlainPredictionVerdictAndTally(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := netip.MustParseAddrPort(l.Addr().String())
	l.Close()
	nic := sim.New(sim.Options{})
	var sessions []*steps.Session
	for _, cfg := range []steps.Config{{Role: steps.Server, Bind: addr}, {Role: steps.Client, Server: addr}} {
		cfg.Lesson, cfg.Provider, cfg.Timeout = lessonNamed("bad-rkey"), nic, 10*time.Second
		s, err := steps.NewSession(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	steps.LinkDemo(sessions[0], sessions[1])
	// The client asks first: 3 is IBV_WC_LOC_PROT_ERR (wrong); the
	// server's 2 is IBV_WC_WR_FLUSH_ERR (right); then Enter per step.
	in := "3\n2\n" + strings.Repeat("\n", 80)
	var buf bytes.Buffer
	p := New(Options{Out: &buf, Lang: text.EN, Prompt: true, Stdin: strings.NewReader(in)})
	if err := p.RunDemo(ctx, sessions[0], sessions[1]); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	out := buf.String()
	for _, want := range []string{
		"✗ Your prediction was IBV_WC_LOC_PROT_ERR (local protection error): this side's own scatter/gather entry failed its check",
		"What happened is IBV_WC_REM_ACCESS_ERR (remote access error): the responder refused the access",
		"✓ Your prediction, IBV_WC_WR_FLUSH_ERR (Work Request Flushed Error), was right",
		"\npredictions: 1 of 2 right\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}
