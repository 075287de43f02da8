package main

import (
	"strings"
	"testing"
	"time"
)

// Both sides know, across two processes: the server registers its buffer
// without REMOTE_WRITE (--edit); the client, started with no edit, is
// told so when the server's hello arrives and again on the step where
// its WRITE fails.
func TestPeerToldOfServersEdit(t *testing.T) {
	port := freePort(t)
	srv := start(t, nil, "server", "--port", port, "--backend", "sim", "--plain", "--auto", "--timeout", "20s",
		"--edit", "reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE")
	srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 20*time.Second)
	cli := start(t, nil, "client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--timeout", "20s")
	if code := cli.wait(t, 60*time.Second); code != 1 {
		t.Fatalf("client exit %d, want 1 (its WRITE fails):\n%s", code, cli.out)
	}
	srv.wait(t, 60*time.Second)
	out := strings.Join(strings.Fields(cli.out.String()), " ")
	for _, want := range []string{
		"The server runs with edits of its own: reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE.",
		"The server changed reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE before this: that may be why.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the client does not say %q:\n%s", want, cli.out)
		}
	}
}
