package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkWorkshopServerMemoryPerAttendee is the workshop server
// process's resident memory per connected attendee: its VmRSS with 50
// client processes connected (each held before its WRITE) minus its VmRSS
// with nobody, divided by 50. Simulated NIC; MRs included.
func BenchmarkWorkshopServerMemoryPerAttendee(b *testing.B) {
	const n = 50
	for b.Loop() {
		port := freePort(b)
		srv := start(b, nil, "server", port, "--workshop", "--plain", "--backend", "sim", "--max-attendees", "60")
		waitOut(b, srv, "[workshop] listening on", 1)
		time.Sleep(200 * time.Millisecond)
		before := vmRSS(b, srv.cmd.Process.Pid)
		var clients []*proc
		for range n {
			clients = append(clients, start(b, nil, "client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--brief", "--pause-at", "post-write"))
		}
		waitOut(b, srv, " connected\n", n)
		after := vmRSS(b, srv.cmd.Process.Pid)
		b.ReportMetric(float64(after-before)/n, "RSS-B/attendee")
		for _, c := range clients {
			c.cmd.Process.Kill()
			<-c.done
		}
		srv.cmd.Process.Signal(os.Interrupt)
		<-srv.done
	}
}

func vmRSS(b *testing.B, pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// waitOut waits until p's output holds s at least count times.
func waitOut(b *testing.B, p *proc, s string, count int) {
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(p.out.String(), s) < count {
		if time.Now().After(deadline) {
			b.Fatalf("%q seen %d times, want %d:\n%s", s, strings.Count(p.out.String(), s), count, p.out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
