package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestSimWireIsTheSameEveryRun runs each RC tour as two --auto processes
// on the simulated NIC, again and again, and requires both sides' --pcap
// to hold the same packet sequence every time. Both sides hang up on
// their own at the end of the tour; before the server gave the client's
// DREQ a moment (steps.serverHangupGrace) and the NIC put its last frames
// on the wire before the process exited (sim.Provider.Quiesce), a
// capture held 8, 9 or 11 packets from run to run, and a comparison with
// rxe's capture failed now and then. RDMATOUR_WIRE_RUNS sets the count.
func TestSimWireIsTheSameEveryRun(t *testing.T) {
	runs := 20
	if n, err := strconv.Atoi(os.Getenv("RDMATOUR_WIRE_RUNS")); err == nil && n > 0 {
		runs = n
	}
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"write-send", []string{"--notify", "send"}},
		{"write-doorbell", []string{"--notify", "doorbell"}},
		{"write-imm", []string{"--notify", "imm"}},
		{"read", []string{"--tour", "read"}},
		{"atomic", []string{"--tour", "atomic"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			seen := map[string]int{}
			var mu sync.Mutex
			// A few pairs at a time: the sequence must not depend on load.
			sem := make(chan struct{}, 3)
			var wg sync.WaitGroup
			for i := 0; i < runs; i++ {
				wg.Add(1)
				sem <- struct{}{}
				go func(i int) {
					defer wg.Done()
					defer func() { <-sem }()
					got := autoPairWire(t, tc.flags, i)
					mu.Lock()
					seen[got]++
					mu.Unlock()
				}(i)
			}
			wg.Wait()
			if len(seen) != 1 {
				for seq, n := range seen {
					t.Errorf("%d of %d runs:\n%s", n, runs, seq)
				}
			}
		})
	}
}

// autoPairWire runs one --auto server and client pair and returns what
// their captures hold, the server's then the client's.
func autoPairWire(t *testing.T, flags []string, i int) string {
	dir := t.TempDir()
	spcap, cpcap := filepath.Join(dir, "server.pcap"), filepath.Join(dir, "client.pcap")
	common := append([]string{"--port", freePort(t), "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "20s"}, flags...)
	srv := start(t, nil, append([]string{"server", "--pcap", spcap}, common...)...)
	srv.waitFor(t, "rdma_listen(", 20*time.Second)
	cli := start(t, nil, append([]string{"client", "127.0.0.1", "--pcap", cpcap}, common...)...)
	if code := cli.wait(t, 60*time.Second); code != 0 {
		t.Errorf("run %d: client exit %d:\n%s", i, code, cli.out)
	}
	if code := srv.wait(t, 60*time.Second); code != 0 {
		t.Errorf("run %d: server exit %d:\n%s", i, code, srv.out)
	}
	return fmt.Sprintf("server: %s\nclient: %s", kindsOf(t, spcap), kindsOf(t, cpcap))
}
