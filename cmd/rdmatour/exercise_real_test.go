package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/exercise"
	"github.com/rdmatour/rdmatour/verbs/sim"
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

// A program expected to hang is stopped sooner: the limit is the test's
// cost, and a hang is a hang after a few seconds as after ninety.
const (
	hangLimit  = "6s"
	checkLimit = "90s"
)

// realCase is one check of TestRealExercises: an exercise's variant and
// what its verdict must name.
type realCase struct {
	ex      exercise.Exercise
	variant exercise.Variant
	want    string // "" for the solution: a pass
}

// realCases are every exercise's unchanged program, solution and wrong
// fixes (RDMATOUR_EXERCISES, comma-separated, narrows them to a few).
func realCases(t *testing.T) []realCase {
	only := os.Getenv("RDMATOUR_EXERCISES")
	var out []realCase
	for _, e := range exercise.Catalogue() {
		if only != "" && !strings.Contains(","+only+",", ","+e.Name+",") {
			continue
		}
		p, err := e.Programs(context.Background(), sim.New(sim.Options{}), sim.New(sim.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		variants, err := e.Variants(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range variants {
			c := realCase{ex: e, variant: v, want: unchangedVerdict[e.Name]}
			switch {
			case v.Fix != nil:
				c.want = v.Fix.Real
			case v.Name == "solution":
				c.want = ""
			}
			out = append(out, c)
		}
	}
	return out
}

// TestRealExercises runs check on the real device (in the QEMU guest):
// every exercise's program as start wrote it fails with its own
// evidence, every wrong fix with its own, and the reference solution
// passes. With RDMATOUR_EXERCISE_BUILT=DIR (TestBuildExercisePrograms
// built them there, on the host) check takes the built programs instead
// of running gcc, which under TCG costs 25-50 s a program. Checks run
// in parallel (-test.parallel), each on its own port.
func TestRealExercises(t *testing.T) {
	realAddr(t)
	built := os.Getenv("RDMATOUR_EXERCISE_BUILT")
	for i, c := range realCases(t) {
		t.Run(c.ex.Name+"/"+c.variant.Name, func(t *testing.T) {
			t.Parallel()
			l := newLearner(t)
			src := filepath.Join(l.dir, c.ex.FileName())
			if c.variant.Name == "unchanged" { // as start writes it; the others in its place
				if code, _, errs := l.run("exercise", "start", c.ex.Name, "--dir", l.dir); code != 0 {
					t.Fatalf("start: %s", errs)
				}
				if b, _ := os.ReadFile(src); string(b) != c.variant.Source {
					t.Fatal("start wrote another program than the unchanged one")
				}
			} else if err := os.WriteFile(src, []byte(c.variant.Source), 0o644); err != nil {
				t.Fatal(err)
			}
			if built != "" {
				takeBuilt(t, filepath.Join(built, c.ex.Name, c.variant.Name), c, src)
			}
			limit := checkLimit
			if c.want == "killed at the" {
				limit = hangLimit
			}
			start := time.Now()
			code, out, errs := l.run("exercise", "check", c.ex.Name, "--dir", l.dir, "--time-limit", limit, "--port", fmt.Sprint(20000+i))
			t.Logf("check took %.1fs", time.Since(start).Seconds())
			if c.want == "" {
				if code != 0 || !strings.Contains(out, "pass: "+c.ex.Name+" works") || !l.progress().Exercise(c.ex.Name).Passed {
					t.Errorf("check of the solution: exit %d, want 0 and the pass recorded:\n%s%s", code, out, errs)
				}
				return
			}
			if code != 1 || !strings.Contains(out, "fail:") || !strings.Contains(out, c.want) {
				t.Errorf("check of the %s program: exit %d, want 1 and %q:\n%s%s", c.variant.Name, code, c.want, out, errs)
			}
		})
	}
}

// takeBuilt puts the program built on the host beside the learner's
// source, newer than it, as make would leave it: check then runs it
// without building. It must have been built from this very source.
func takeBuilt(t *testing.T, dir string, c realCase, src string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(dir, c.ex.FileName())); err != nil || string(b) != c.variant.Source {
		t.Fatalf("%s: no program built from this source (%v): run TestBuildExercisePrograms again", dir, err)
	}
	bin, err := os.ReadFile(filepath.Join(dir, c.ex.Name))
	if err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(filepath.Dir(src), c.ex.Name)
	if err := os.WriteFile(to, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(to, later, later); err != nil {
		t.Fatal(err)
	}
}

// TestBuildExercisePrograms builds, on the host, every program
// TestRealExercises checks, into RDMATOUR_EXERCISE_BUILD=DIR
// (DIR/NAME/VARIANT/NAME.c and NAME), with the flags check uses, two at
// a time. It is not a Real test: it runs where gcc is fast.
func TestBuildExercisePrograms(t *testing.T) {
	dir := os.Getenv("RDMATOUR_EXERCISE_BUILD")
	if dir == "" {
		t.Skip("set RDMATOUR_EXERCISE_BUILD=DIR to build the exercises' programs for TestRealExercises (RDMATOUR_EXERCISE_BUILT=DIR)")
	}
	cases := realCases(t)
	work := make(chan realCase)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				if err := buildVariant(filepath.Join(dir, c.ex.Name, c.variant.Name), c); err != nil {
					mu.Lock()
					failed = append(failed, err.Error())
					mu.Unlock()
				}
			}
		}()
	}
	for _, c := range cases {
		work <- c
	}
	close(work)
	wg.Wait()
	if len(failed) > 0 {
		t.Fatal(strings.Join(failed, "\n"))
	}
	t.Logf("built %d programs in %s", len(cases), dir)
}

func buildVariant(dir string, c realCase) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src := filepath.Join(dir, c.ex.FileName())
	if err := os.WriteFile(src, []byte(c.variant.Source), 0o644); err != nil {
		return err
	}
	var out bytes.Buffer
	cmd := exec.Command("gcc", "-std=c99", "-Wall", "-Werror", "-o", filepath.Join(dir, c.ex.Name), src, "-libverbs", "-lrdmacm")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("gcc %s: %v\n%s", src, err, out.String())
	}
	return nil
}
