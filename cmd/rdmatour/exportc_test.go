package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportCBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "name one side, server or client"},
		{[]string{"server", "client"}, "name one side"},
		{[]string{"bogus"}, `unknown side "bogus"`},
		{[]string{"client", "--notify", "carrier-pigeon"}, `unknown notify mode "carrier-pigeon"`},
		{[]string{"client", "--track", "fast"}, `unknown track "fast"`},
		{[]string{"client", "--lesson", "nope"}, `unknown lesson "nope"`},
		{[]string{"server", "--track", "manual", "--lesson", "bad-rkey"}, "cannot be combined"},
		{[]string{"client", "--no-such-flag"}, "flag provided but not defined"},
		{[]string{"client", "--message-size", "4097"}, "--message-size 4097 is out of range"},
		{[]string{"client", "--message-size", "8"}, "--message-size 8 is smaller than the message"},
		{[]string{"client", "--tour", "read", "--message", "MY READ MSG"}, "--message with --tour read: this tour sends no message"}, // E4
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"export-c"}, tt.args...), nil, &stdout, &stderr, func(string) string { return "" })
		if code != 2 || !strings.Contains(stderr.String(), tt.want) || stdout.Len() != 0 {
			t.Errorf("export-c %v: exit %d, stderr %q, %d bytes out; want exit 2 and %q", tt.args, code, stderr.String(), stdout.Len(), tt.want)
		}
	}
}

// TestExportCBuilds writes programs through the command line, flags
// before and after the side, to stdout and with -o, and builds them with
// -Wall -Werror. (export.TestExportedProgramsBuild builds every tour.)
func TestExportCBuilds(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	if _, err := os.Stat("/usr/include/rdma/rdma_cma.h"); err != nil {
		t.Skip("the rdma_cm headers are not installed (apt-get install librdmacm-dev libibverbs-dev)")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"server", []string{"server"}, `"server"`},
		{"client-imm", []string{"--notify", "imm", "client"}, "IBV_WR_RDMA_WRITE_WITH_IMM"},
		{"client-doorbell-manual", []string{"client", "--notify", "doorbell", "--track", "manual", "-o", filepath.Join(dir, "client-doorbell-manual.c")}, "ibv_modify_qp"},
		{"client-bad-rkey", []string{"client", "--lesson", "bad-rkey"}, ".rkey = mr->lkey"},
		{"client-message-size", []string{"client", "--message-size", "3000"}, `snprintf(buf, BUF_SIZE, "%-*s", 2999, "hello from rdmatour client via RDMA WRITE")`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), append([]string{"export-c"}, tt.args...), nil, &stdout, &stderr, func(string) string { return "" }); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			file := filepath.Join(dir, tt.name+".c")
			if stdout.Len() > 0 {
				if err := os.WriteFile(file, stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), tt.want) {
				t.Errorf("program lacks %q", tt.want)
			}
			out, err := exec.Command("gcc", "-std=c99", "-Wall", "-Werror", "-o", filepath.Join(dir, tt.name), file, "-libverbs", "-lrdmacm").CombinedOutput()
			if err != nil {
				t.Fatalf("gcc: %v\n%s", err, out)
			}
		})
	}
}

// TestExportCTellsAFirstTimer: export-c says on standard error what the
// program needs and the two commands that run it against rdmatour, and
// the program's header says the same (ux review item 14).
func TestExportCTellsAFirstTimer(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"client"}, []string{"rdmatour server --backend rdma\n", "./rdmatour-client client SERVER_IP\n"}},
		{[]string{"server", "--tour", "read"}, []string{"./rdmatour-server server\n", "rdmatour client SERVER_IP --backend rdma --tour read\n"}},
		{[]string{"client", "--lesson", "bad-rkey", "--notify", "imm"}, []string{"rdmatour server --backend rdma --lesson bad-rkey --notify imm\n"}},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"export-c"}, tt.args...), nil, &stdout, &stderr, func(string) string { return "" }); code != 0 {
			t.Fatalf("export-c %v: exit %d: %s", tt.args, code, stderr.String())
		}
		needs := []string{"libibverbs-dev librdmacm-dev", "rdma-core-devel", "rdmatour doctor", "--backend sim", "127.0.0.1 does not reach rxe"}
		for _, w := range append(needs, tt.want...) {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("export-c %v: stderr lacks %q:\n%s", tt.args, w, stderr.String())
			}
		}
		for _, w := range needs {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("export-c %v: the program's header lacks %q", tt.args, w)
			}
		}
	}
}

// TestExportCHelpReadsCleanly: every flag names its value (MODE, NAME,
// FILE), none says "string" or takes a quoted command for its name.
func TestExportCHelpReadsCleanly(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"export-c", "--help"}, nil, &stdout, &stderr, func(string) string { return "" }); code != 0 {
		t.Fatalf("export-c --help: exit %d", code)
	}
	help := stderr.String()
	for _, bad := range []string{" string\n", " int\n", "-lesson rdmatour"} {
		if strings.Contains(help, bad) {
			t.Errorf("export-c --help has %q:\n%s", bad, help)
		}
	}
	for _, good := range []string{"-lesson NAME", "-notify MODE", "-o FILE", "-tour TOUR", "-track TRACK", "-message TEXT"} {
		if !strings.Contains(help, good) {
			t.Errorf("export-c --help lacks %q", good)
		}
	}
}
