package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/text"
)

func TestEditFlag(t *testing.T) {
	env := func(string) string { return "" }
	tests := []struct {
		args    []string
		wantErr string // "" = accepted
		edits   int
	}{
		{[]string{"demo", "--edit", "post-write.rkey=+1"}, "", 1},
		{[]string{"demo", "--edit", "post-write.rkey=lkey", "--edit", "server:reg-mr-data.access=LOCAL_WRITE"}, "", 2},
		{[]string{"client", "10.0.0.1", "--edit", "post-write.length=8"}, "", 1},
		{[]string{"server", "--edit", "reg-mr-data.access=LOCAL_WRITE"}, "", 1},
		{[]string{"server", "--edit", "post-write.rkey=+1"}, "rdmatour client", 0},
		{[]string{"client", "10.0.0.1", "--edit", "post-recv.length=8"}, "rdmatour server", 0},
		{[]string{"demo", "--edit", "post-write.rky=1"}, "valid: rkey, remote_addr", 0},
		{[]string{"demo", "--edit", "nope.x=1"}, "valid: accept", 0},
		{[]string{"demo", "--edit", "create-cq.cqe=99999999"}, "refused", 0},
		{[]string{"demo", "--edit", "post-write.send_flags=0"}, "wait forever", 0},
		{[]string{"demo", "--notify", "imm", "--edit", "post-write.rkey=+1"}, "no step post-write", 0},
		{[]string{"demo", "--notify", "imm", "--edit", "post-write-imm.rkey=+1"}, "", 1},
	}
	for _, tt := range tests {
		o, err := parseArgs(tt.args, env, io.Discard)
		if tt.wantErr == "" {
			if err != nil || len(o.edits) != tt.edits {
				t.Errorf("%q: err %v, %d edits, want %d", tt.args, err, len(o.edits), tt.edits)
			}
			continue
		}
		var ue *usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%q: error %v, want a usage error with %q", tt.args, err, tt.wantErr)
		}
	}
}

func TestListEdits(t *testing.T) {
	var out bytes.Buffer
	if err := listEdits(&out, "post-write", text.EN); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wr.rdma.rkey", "IBV_WR_RDMA_READ", "IBV_SEND_SIGNALED", "0..64"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("edits post-write lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := listEdits(&out, "reg-mr-data", text.ZH); err != nil || !strings.Contains(out.String(), "这个 MR 允许") {
		t.Errorf("edits reg-mr-data in Chinese: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := listEdits(&out, "", text.EN); err != nil || !strings.Contains(out.String(), "post-recv") {
		t.Errorf("edits: %v\n%s", err, out.String())
	}
	if err := listEdits(&out, "teardown", text.EN); err == nil || !strings.Contains(err.Error(), "post-write") {
		t.Errorf("edits teardown: %v", err)
	}
}

// --record keeps the edits: the header names them, and the replay prints
// what the live demo printed, the edited C line with its "you: was"
// included, and ends the same way (the edit made the WRITE fail).
func TestRecordAndReplayKeepEdits(t *testing.T) {
	file := filepath.Join(t.TempDir(), "edited.jsonl")
	live := runBin(t, "demo", "--port", freePort(t), "--backend", "sim", "--plain", "--auto", "--edit", "post-write.rkey=+1", "--record", file)
	if live.code != 1 || !strings.Contains(live.stdout, "/* you: was 0x") || !strings.Contains(live.stderr, "remote access error") {
		t.Fatalf("live: exit %d, stderr %q, edited line shown %v", live.code, live.stderr, strings.Contains(live.stdout, "you: was"))
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(string(raw), "\n"); !strings.Contains(header, `"edits":["post-write.rkey=+1"]`) {
		t.Errorf("header lacks the edit: %.300s", header)
	}
	sameAsLive(t, live, file)
}
