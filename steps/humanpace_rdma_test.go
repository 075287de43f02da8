//go:build linux && cgo

package steps

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cmCounter reads one of the IB CM's per-port counters of dev, e.g.
// "cm_rx_duplicates/req" (0 when the kernel has none). Counters of sent
// MADs that expect an answer move only when the exchange ends; the
// receiving side's duplicates and MRAs move at once.
func cmCounter(dev, name string) int {
	b, err := os.ReadFile(filepath.Join("/sys/class/infiniband", dev, "ports/1", name))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// On rxe, a server whose user reads for 20 s before rdma_accept (longer
// than --timeout here, and than the REQ's first response timeout): the
// client's interactive wait for ESTABLISHED goes on, its CM repeats the
// REQ, the server's CM answers with an MRA (what concept-waiting.md
// describes, measured at 120 s), and ESTABLISHED comes after the accept.
func TestRealHandshakeWaitsForAPerson(t *testing.T) {
	p, addr := realVerbs(t)
	const reading, timeout = 20 * time.Second, 3 * time.Second
	ap := netip.AddrPortFrom(addr, 7640)
	srv, err := NewSession(Config{Role: Server, Provider: p, Bind: ap, Timeout: timeout, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cli, err := NewSession(Config{Role: Client, Provider: p, Server: ap, Timeout: timeout, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	runTo := func(s *Session, id StepID) {
		t.Helper()
		for s.Steps()[s.Next()].ID != id {
			if out, err := s.RunNext(ctx); err != nil {
				t.Fatalf("%s %s: %v\n%s", s.Config().Role, s.Steps()[s.Next()].ID, err, out.Call)
			}
		}
	}
	runTo(srv, "get-connect-request")
	runTo(cli, "get-established")
	srvDone := make(chan struct{})
	go func() { // the server's user reads up to accept
		defer close(srvDone)
		runTo(srv, "accept")
	}()
	dev := cli.Snapshot().Device.Info.Name
	retries, mras := cmCounter(dev, "cm_rx_duplicates/req"), cmCounter(dev, "cm_tx_msgs/mra")
	start := time.Now()
	cliDone := make(chan error, 1)
	go func() { _, err := cli.RunNext(ctx); cliDone <- err }()
	<-srvDone
	time.Sleep(reading)
	select {
	case err := <-cliDone:
		t.Fatalf("the client's wait ended after %v, before the accept: %v", time.Since(start), err)
	default:
	}
	dr, dm := cmCounter(dev, "cm_rx_duplicates/req")-retries, cmCounter(dev, "cm_tx_msgs/mra")-mras
	t.Logf("after %v without rdma_accept: %d repeated REQs received, %d MRAs sent", reading, dr, dm)
	if dr < 1 || dm < 1 {
		t.Errorf("want the REQ repeated and answered with an MRA within %v: %d repeats, %d MRAs", reading, dr, dm)
	}
	for _, id := range []string{"accept", "get-established"} {
		if out, err := srv.RunNext(ctx); err != nil {
			t.Fatalf("server %s: %v\n%s", id, err, out.Call)
		}
	}
	if err := <-cliDone; err != nil {
		t.Fatalf("client get-established after the accept: %v", err)
	}
	t.Logf("ESTABLISHED %v after rdma_connect", time.Since(start).Round(time.Second))
}
