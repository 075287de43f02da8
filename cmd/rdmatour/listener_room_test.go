package main

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestWorkshopListenerSurvivesDescriptorExhaustion is the hostile
// review's W8: S3's burst of idle connections against a workshop room.
// The room shares the simulated NIC's accept loop with the one-client
// server (TestListenerSurvivesDescriptorExhaustion), so once the burst is
// gone the room serves attendees again, and Ctrl-C still prints the
// roster.
func TestWorkshopListenerSurvivesDescriptorExhaustion(t *testing.T) {
	port := freePort(t)
	srv := start(t, []string{"sh", "-c", `ulimit -n 48 && exec "$@"`, "sh"},
		"server", port, "--workshop", "--backend", "sim", "--plain")
	srv.waitFor(t, "[workshop] listening on", 20*time.Second)
	var flood []net.Conn
	for i := 0; i < 80; i++ {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			break
		}
		flood = append(flood, c)
	}
	// The room accepts what it can, then meets EMFILE (it says so only
	// in the simulated NIC's log): its descriptors reach the limit.
	fdDir := fmt.Sprintf("/proc/%d/fd", srv.cmd.Process.Pid)
	deadline := time.Now().Add(10 * time.Second)
	for n := 0; n < 46; time.Sleep(20 * time.Millisecond) {
		fds, _ := os.ReadDir(fdDir)
		if n = len(fds); time.Now().After(deadline) {
			t.Fatalf("the flood of %d connections left the room %d descriptors of 48", len(flood), n)
		}
	}
	time.Sleep(500 * time.Millisecond)
	for _, c := range flood {
		c.Close()
	}
	for i := range 3 {
		msg := fmt.Sprintf("after the flood %d", i)
		cli := start(t, nil, "client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "30s", "--message", msg)
		if code := cli.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("attendee %d exit %d after the flood:\n%s\nserver:\n%s", i, code, cli.out, srv.out)
		}
		srv.waitFor(t, msg, 10*time.Second)
	}
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("room exit %d after Ctrl-C:\n%s", code, srv.out)
	}
	if out := srv.out.String(); !strings.Contains(out, "roster: 3 done") {
		t.Errorf("the roster lacks the 3 attendees:\n%s", out)
	}
}
