package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutputsRefusedUpFront is the hostile review's F3, F5, F6 and F8:
// an output that cannot be written is refused before the first step,
// with the flag and the reason, instead of hanging in open or write (a
// FIFO nobody reads) or failing only after the whole tour (/dev/full).
func TestOutputsRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	same := filepath.Join(dir, "same")
	demo := []string{"demo", "--backend", "sim", "--plain", "--auto", "--brief"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"record to a FIFO nobody reads", append(demo, "--record", fifo), "a FIFO that no process reads yet"},
		{"export-c to a FIFO nobody reads", []string{"export-c", "client", "-o", fifo}, "a FIFO that no process reads yet"},
		{"record and pcap one file", append(demo, "--record", same, "--pcap", same), "--pcap and --record both name"},
		{"pcap to a full device", append(demo, "--pcap", "/dev/full"), "--pcap /dev/full: write /dev/full: no space left on device"},
		{"record to a full device", append(demo, "--record", "/dev/full"), "--record /dev/full: write /dev/full: no space left on device"},
		{"record to a directory", append(demo, "--record", dir), "is a directory"},
		{"pcap in a missing folder", append(demo, "--pcap", filepath.Join(dir, "no", "such.pcap")), "no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, nil, append(tc.args, "--port", freePort(t))...)
			if tc.args[0] == "export-c" {
				p = start(t, nil, tc.args...)
			}
			if code := p.wait(t, 20*time.Second); code != 2 {
				t.Errorf("exit %d, want 2:\n%s", code, p.out)
			}
			out := p.out.String()
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out)
			}
			if strings.Contains(out, "[1/") {
				t.Errorf("a step ran before the refusal:\n%s", out)
			}
		})
	}
}

// TestRecordToAStalledReaderNeverHangs: a FIFO whose reader opened it but
// never reads filled after 64 KiB and froze the tour for good, Ctrl-C
// included. Now the tour runs to its end, and the recording is reported
// as cut short.
func TestRecordToAStalledReaderNeverHangs(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader that never reads
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := start(t, nil, "demo", "--backend", "sim", "--plain", "--auto", "--brief", "--port", freePort(t), "--record", fifo)
	if code := p.wait(t, 30*time.Second); code != 1 {
		t.Errorf("exit %d, want 1:\n%s", code, p.out)
	}
	out := p.out.String()
	if !strings.Contains(out, "tour complete") || !strings.Contains(out, "its reader stopped reading") {
		t.Errorf("want the whole tour, then the recording reported cut short:\n%s", out)
	}
}
