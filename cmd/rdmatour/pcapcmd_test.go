package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runBinary runs the built rdmatour and returns its exit status and
// output.
func runBinary(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "LANG=C")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errOut.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

// TestPcapCommand: `rdmatour pcap` as a process — exit 0 for a capture
// it prints, 1 for a file that is not a RoCEv2 capture or is cut off
// (what it is, where), 2 for a mistake on the command line.
func TestPcapCommand(t *testing.T) {
	kept := filepath.Join("..", "..", "wire", "testdata", "rxe-two-hosts-send.pcap")
	whole, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.pcap")
	if err := os.WriteFile(cut, whole[:len(whole)-30], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // a line the output has
		stderr string // what the error line says
	}{
		{"help", []string{"pcap", "--help"}, 0, "Usage: rdmatour pcap FILE", ""},
		{"a kept capture against its tour", []string{"pcap", kept, "--tour", "write"}, 0, "the capture follows it packet for packet", ""},
		{"the flags first", []string{"pcap", "--lang", "zh", "--tour", "read", kept}, 0, "与 read 教程（read）对照", ""},
		{"both languages", []string{"pcap", kept, "--lang", "both"}, 0, "重传：0，缺口：0，NAK：0，重复 ACK：0", ""},
		{"no file", []string{"pcap"}, 2, "", "give the capture file"},
		{"two files", []string{"pcap", kept, kept}, 2, "", "one capture file at a time"},
		{"unknown tour", []string{"pcap", kept, "--tour", "writ"}, 2, "", `--tour "writ": no measured sequence`},
		{"bad language", []string{"pcap", kept, "--lang", "fr"}, 2, "", "fr"},
		{"missing file", []string{"pcap", filepath.Join(dir, "none.pcap")}, 1, "", "no such file"},
		{"not a capture", []string{"pcap", "main.go"}, 1, "", "not a capture file: it starts with 2f 2f 20 43"},
		{"cut off", []string{"pcap", cut}, 1, "#8 ", "cut off inside record 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runBinary(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("rdmatour %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s\nwant stdout with %q, stderr with %q", strings.Join(tc.args, " "), code, tc.code, stdout, stderr, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestPcapReadsStandardInput: FILE "-" reads the capture from a pipe.
func TestPcapReadsStandardInput(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "wire", "testdata", "rxe-two-hosts-read.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(binPath, "pcap", "-", "--tour", "read")
	cmd.Env = append(os.Environ(), "LANG=C")
	cmd.Stdin = f
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-: pcap, Ethernet") || !strings.Contains(string(out), "the capture follows it packet for packet") {
		t.Errorf("rdmatour pcap - < read.pcap: %v\n%s", err, out)
	}
}

// TestPcapReadsOwnCapture: the demo's own --pcap on the simulated NIC
// prints, and follows the write tour's sequence as rxe measured it.
func TestPcapReadsOwnCapture(t *testing.T) {
	pcap := filepath.Join(t.TempDir(), "demo.pcap")
	if code, out, errOut := runBinary(t, "demo", "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "20s", "--port", freePort(t), "--pcap", pcap); code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := runBinary(t, "pcap", pcap, "--tour", "write")
	if code != 0 || !strings.Contains(out, "CM REQ (MAD to QP1)") || !strings.Contains(out, "the capture follows it packet for packet") {
		t.Errorf("pcap of the demo's --pcap: exit %d\n%s\n%s", code, out, errOut)
	}
}
