package main

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestListenerSurvivesDescriptorExhaustion is the hostile review's S3:
// a server with few file descriptors gets a burst of idle connections
// that uses them all, and once they are gone serves a client as before.
// A first version's accept loop ended on the first EMFILE, and the server
// still said it listened and never answered again. The server says on
// stderr that it cannot accept, and why.
func TestListenerSurvivesDescriptorExhaustion(t *testing.T) {
	port := freePort(t)
	common := []string{"--port", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "30s"}
	srv := start(t, []string{"sh", "-c", `ulimit -n 48 && exec "$@"`, "sh"}, append([]string{"server"}, common...)...)
	srv.waitFor(t, "rdma_listen(", 20*time.Second)
	var flood []net.Conn
	for i := 0; i < 80; i++ {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			break
		}
		flood = append(flood, c)
	}
	srv.waitFor(t, "out of file descriptors (EMFILE)", 10*time.Second)
	time.Sleep(500 * time.Millisecond)
	for _, c := range flood {
		c.Close()
	}
	cli := start(t, nil, append([]string{"client", "127.0.0.1"}, common...)...)
	if code := cli.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("client exit %d after the flood:\n%s\nserver:\n%s", code, cli.out, srv.out)
	}
	if code := srv.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	if !strings.Contains(srv.out.String(), "accepts connections again") {
		t.Errorf("the server did not say it accepts again:\n%s", srv.out)
	}
}

// TestDemoOutOfDescriptorsEnds is S3's demo: with too few descriptors for
// both sides, the demo says why and exits instead of waiting for ever.
func TestDemoOutOfDescriptorsEnds(t *testing.T) {
	demo := start(t, []string{"sh", "-c", `ulimit -n 9 && exec "$@"`, "sh"},
		"demo", "--port", freePort(t), "--backend", "sim", "--plain", "--auto", "--brief")
	if code := demo.wait(t, 60*time.Second); code == 0 {
		t.Fatalf("demo with 9 descriptors exit 0:\n%s", demo.out)
	}
	if out := demo.out.String(); !strings.Contains(out, "out of file descriptors (EMFILE)") {
		t.Errorf("the demo did not say it ran out of descriptors:\n%s", out)
	}
}
