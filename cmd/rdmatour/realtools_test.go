package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/perftest"
)

// The real tools a tour names at its end (guide.RealTools) must run as
// printed: on rxe in the guest, each pair is started, the server first,
// and both must exit 0. ensure-deps.sh installs perftest, rdmacm-utils
// and ibverbs-utils.

// toolPair is one tool's two command lines.
type toolPair struct{ server, client string }

// printedTools finds the commands in a tour's output.
func printedTools(t *testing.T, out string) []toolPair {
	t.Helper()
	const head = "The same with the real tools: "
	i := strings.Index(out, head)
	if i < 0 {
		t.Fatalf("the tour named no real tools:\n%s", out)
	}
	line, _, _ := strings.Cut(out[i+len(head):], "\n")
	var pairs []toolPair
	for _, item := range strings.Split(strings.TrimSuffix(line, "."), " · ") {
		srv, rest, ok1 := strings.Cut(strings.TrimPrefix(item, "server: "), "; client: ")
		cli, _, ok2 := strings.Cut(rest, " (")
		if !ok1 || !ok2 {
			t.Fatalf("cannot read the commands in %q", item)
		}
		pairs = append(pairs, toolPair{srv, cli})
	}
	return pairs
}

// runRealTools runs every pair printed in out. Each pair gets a port of
// its own in place of the tour's (the tour's rdma_cm port may not be
// free yet a moment after it ended); everything else is as printed. No
// wait is unbounded: a tool is killed at its deadline, and a client that
// found no listener yet (TCG is slow to start one) tries again.
func runRealTools(t *testing.T, out string) {
	t.Helper()
	for _, p := range printedTools(t, out) {
		port := freePort(t)
		srv, cli := withPort(strings.Fields(p.server), port), withPort(strings.Fields(p.client), port)
		t.Run(srv[0], func(t *testing.T) { runToolPair(t, srv, cli) })
	}
}

// withPort is args with the value of -p replaced.
func withPort(args []string, port string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		if out[i] == "-p" && i+1 < len(out) {
			out[i+1] = port
		}
	}
	return out
}

func runToolPair(t *testing.T, srvArgs, cliArgs []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tm := perftest.GuestTiming()
	tm.Settle, tm.Tries = 3*time.Second, 4 // TCG: let the server listen
	if _, err := perftest.RunPair(ctx, srvArgs, cliArgs, tm); err != nil {
		t.Error(err)
	}
}
