package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The hostile review's replay cases as processes (../shared/reviews/hostile.md).

// TestOwnRecordingWithAnyMessageReplays is T4 and T5: a demo recorded
// with a --message holding ESC, OSC 52 and bytes that are not UTF-8 (a
// Latin-1 terminal) replays, and prints what the live run printed.
func TestOwnRecordingWithAnyMessageReplays(t *testing.T) {
	for name, msg := range map[string]string{
		"T4 controls":  "\x1b[31mRED\x1b]52;c;eA==\a end",
		"T5 not UTF-8": "caf\xe9 cr\xe8me",
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "demo.jsonl")
			live := runBin(t, "demo", "--port", freePort(t), "--backend", "sim", "--plain", "--auto", "--brief", "--message", msg, "--record", file)
			if live.code != 0 {
				t.Fatalf("live demo: exit %d %s", live.code, live.stderr)
			}
			if strings.ContainsAny(live.stdout, "\x1b\a\xe9") {
				t.Errorf("the live run printed a raw byte of the message")
			}
			sameAsLive(t, live, file, "--brief")
		})
	}
}

// TestReplayRefusesTwoConnections is R3: an atomic server's file and a
// write client's file are not one demo, nor are two runs' files.
func TestReplayRefusesTwoConnections(t *testing.T) {
	dir := t.TempDir()
	record := func(name string, tour ...string) (srvFile, cliFile string) {
		port := freePort(t)
		srvFile, cliFile = filepath.Join(dir, name+"-srv.jsonl"), filepath.Join(dir, name+"-cli.jsonl")
		common := append([]string{"--port", port, "--backend", "sim", "--plain", "--auto", "--brief"}, tour...)
		srv := startBin(t, append(append([]string{"server"}, common...), "--record", srvFile)...)
		waitListening(t, srv)
		cli := runBin(t, append(append([]string{"client", "127.0.0.1"}, common...), "--record", cliFile)...)
		if s := waitBin(t, srv); s.code != 0 || cli.code != 0 {
			t.Fatalf("%s: server %d %s, client %d %s", name, s.code, s.stderr, cli.code, cli.stderr)
		}
		return srvFile, cliFile
	}
	atomicSrv, _ := record("atomic", "--tour", "atomic")
	writeSrv, writeCli := record("write")
	otherSrv, _ := record("write2")
	for name, pair := range map[string][2]string{"other tour": {atomicSrv, writeCli}, "other run": {otherSrv, writeCli}} {
		r := runBin(t, "replay", "--plain", pair[0], pair[1])
		if r.code == 0 || !strings.Contains(r.stderr, "the two recordings are not one connection") {
			t.Errorf("%s: exit %d, stderr %q", name, r.code, r.stderr)
		}
	}
	if r := runBin(t, "replay", "--plain", "--brief", writeSrv, writeCli); r.code != 0 {
		t.Errorf("one connection's two files: exit %d %s", r.code, r.stderr)
	}
}
