package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unchangedVerdict is, per exercise, what check must say of the program
// as start writes it: the evidence its failure shows on Soft-RoCE.
var unchangedVerdict = map[string]string{
	"no-remote-write":     "remote access error",
	"bad-rkey":            "remote access error",
	"fill-sge":            "TODO: the ibv_sge of the RDMA WRITE is still empty",
	"post-the-write":      "TODO: the RDMA WRITE is not written yet",
	"poll-the-cq":         "TODO: the poll of the WRITE is not written yet",
	"write-too-long":      "RDMA_WRITE completion failed",
	"no-recv":             "killed at the",
	"htonl-address":       "remote access error",
	"post-before-connect": "ibv_post_send before rdma_connect: Invalid argument",
	"atomic-unaligned":    "Invalid argument",
	"manual-rtr":          "TODO: the INIT to RTR transition is not written yet",
	"ud-address-handle":   "TODO: the address handle is not written yet",
}

// TestRealExercises runs check on the real device (scripts/realverbs.sh,
// in the QEMU guest): every exercise's program as start wrote it fails
// with its own evidence, and its reference solution, put in its place,
// passes. RDMATOUR_EXERCISES (comma-separated) narrows it to a few.
func TestRealExercises(t *testing.T) {
	realAddr(t)
	only := os.Getenv("RDMATOUR_EXERCISES")
	for name, want := range unchangedVerdict {
		if only != "" && !strings.Contains(","+only+",", ","+name+",") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			l := newLearner(t)
			if code, _, errs := l.run("exercise", "start", name, "--dir", l.dir); code != 0 {
				t.Fatalf("start: %s", errs)
			}
			code, out, errs := l.run("exercise", "check", name, "--dir", l.dir, "--time-limit", "90s")
			if code != 1 || !strings.Contains(out, "fail:") || !strings.Contains(out, want) {
				t.Errorf("check of the unchanged program: exit %d, want 1 and %q:\n%s%s", code, want, out, errs)
			}
			if code, _, errs := l.run("exercise", "solution", name, "--dir", l.dir); code != 0 {
				t.Fatalf("solution: %s", errs)
			}
			if err := os.Rename(filepath.Join(l.dir, name+".solution.c"), filepath.Join(l.dir, name+".c")); err != nil {
				t.Fatal(err)
			}
			code, out, errs = l.run("exercise", "check", name, "--dir", l.dir, "--time-limit", "90s")
			if code != 0 || !strings.Contains(out, "pass: "+name+" works") {
				t.Errorf("check of the solution: exit %d, want 0:\n%s%s", code, out, errs)
			}
			if !l.progress().Exercise(name).Passed {
				t.Error("the pass was not recorded")
			}
		})
	}
}
