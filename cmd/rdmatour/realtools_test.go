package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
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

// runRealTools runs every pair printed in out.
func runRealTools(t *testing.T, out string) {
	t.Helper()
	for _, p := range printedTools(t, out) {
		t.Run(strings.Fields(p.server)[0], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			srv := exec.CommandContext(ctx, "sh", "-c", p.server)
			var srvOut strings.Builder
			srv.Stdout, srv.Stderr = &srvOut, &srvOut
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(3 * time.Second) // TCG: let the server listen
			cliOut, cliErr := exec.CommandContext(ctx, "sh", "-c", p.client).CombinedOutput()
			srvErr := srv.Wait()
			if cliErr != nil || srvErr != nil {
				t.Errorf("%s: %v\n%s\n%s: %v\n%s", p.server, srvErr, srvOut.String(), p.client, cliErr, cliOut)
			}
		})
	}
}
