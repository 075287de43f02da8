package exercise_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/exercise"
	"github.com/rdmatour/rdmatour/export"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

func programs(t *testing.T, e exercise.Exercise) exercise.Programs {
	t.Helper()
	p, err := e.Programs(context.Background(), sim.New(sim.Options{}), sim.New(sim.Options{}))
	if err != nil {
		t.Fatalf("%s: %v", e.Name, err)
	}
	return p
}

// TestCatalogue: at least ten exercises, both kinds, unique names, every
// lesson named exists, every page has three hints in both languages.
func TestCatalogue(t *testing.T) {
	all := exercise.Catalogue()
	if len(all) < 10 {
		t.Errorf("%d exercises, want at least 10", len(all))
	}
	seen := map[string]bool{}
	kinds := map[exercise.Kind]int{}
	for _, e := range all {
		if seen[e.Name] {
			t.Errorf("exercise %s twice", e.Name)
		}
		seen[e.Name] = true
		kinds[e.Kind]++
		if e.Lesson != "" {
			if _, err := steps.ParseLesson(e.Lesson); err != nil {
				t.Errorf("%s: %v", e.Name, err)
			}
		}
		if len(e.Task) == 0 {
			t.Errorf("%s: the learner's program is the solution", e.Name)
		}
		for _, lang := range []string{"en", "zh"} {
			if _, err := e.Hints(lang); err != nil {
				t.Errorf("%s: %v", e.Name, err)
			}
			if task, err := e.TaskText(lang); err != nil || task == "" {
				t.Errorf("%s: task %q, %v", e.Name, task, err)
			}
		}
	}
	if kinds[exercise.FixTheBug] < 5 || kinds[exercise.FillIn] < 5 {
		t.Errorf("kinds: %v; want at least five of each", kinds)
	}
	var unknown *exercise.UnknownError
	if _, err := exercise.Find("nope"); !errors.As(err, &unknown) || !strings.Contains(err.Error(), "bad-rkey") {
		t.Errorf("Find(nope) = %v; want an UnknownError listing the exercises", err)
	}
}

var youWas = regexp.MustCompile(` /\* (you|lesson [a-z0-9-]+): was [^*]*(\*[^/][^*]*)*\*/`)

// TestMistakesAreTheLessons: a lesson's exercise makes exactly the
// mistake the lesson's exported program makes.
func TestMistakesAreTheLessons(t *testing.T) {
	for _, e := range exercise.Catalogue() {
		if e.Lesson == "" {
			continue
		}
		l, _ := steps.ParseLesson(e.Lesson)
		o := e.Options()
		o.Lesson = l
		o.Notify = l.Notify
		prog, err := export.Program(context.Background(), o, sim.New(sim.Options{}), sim.New(sim.Options{}))
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		// A lesson is a preset of edits, and an exported lesson marks its
		// edited arguments (/* lesson bad-rkey: was … */); the exercise's program is
		// the unmarked one, as a learner's own code would be.
		prog = youWas.ReplaceAllString(prog, "")
		for _, ed := range e.Task {
			if ed.To != "" && !strings.Contains(prog, ed.To) {
				t.Errorf("%s: lesson %s's program lacks the exercise's mistake %q", e.Name, e.Lesson, ed.To)
			}
			if ed.To == "" && strings.Contains(prog, ed.From) {
				t.Errorf("%s: lesson %s's program still has %q, which the exercise removes", e.Name, e.Lesson, ed.From)
			}
		}
	}
}

// TestProgramsCompile: every learner's program, unchanged, and every
// solution compile with -Wall -Werror and link against the libraries.
// A fill-in's TODO is a runtime error, and differs from its solution.
func TestProgramsCompile(t *testing.T) {
	needGCC(t)
	dir := t.TempDir()
	for _, e := range exercise.Catalogue() {
		p := programs(t, e)
		if p.Learner == p.Solution {
			t.Errorf("%s: the learner's program is the solution", e.Name)
		}
		if e.Kind == exercise.FillIn && !strings.Contains(p.Learner, "die_msg(\"TODO: ") {
			t.Errorf("%s: a fill-in without a runtime TODO", e.Name)
		}
		variants, err := e.Variants(p)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		for _, v := range variants {
			name, src := e.Name+"."+v.Name, v.Source
			file := filepath.Join(dir, name+".c")
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("gcc", "-std=c99", "-Wall", "-Werror", "-o", filepath.Join(dir, name), file, "-libverbs", "-lrdmacm").CombinedOutput()
			if err != nil {
				t.Errorf("gcc %s: %v\n%s", name, err, out)
			}
		}
	}
}

func needGCC(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	if _, err := os.Stat("/usr/include/rdma/rdma_cma.h"); err != nil {
		t.Skip("the rdma_cm headers are missing (apt-get install libibverbs-dev librdmacm-dev)")
	}
}

// TestStartNeverOverwrites: start writes the program, Makefile and
// README; a second start refuses to touch the learner's file, and the
// solution goes beside it under its own name. make builds it.
func TestStartNeverOverwrites(t *testing.T) {
	e, _ := exercise.Find("bad-rkey")
	p := programs(t, e)
	dir := t.TempDir()
	if err := e.Start(dir, p, "the task"); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "bad-rkey.c")
	if err := os.WriteFile(mine, []byte("my work"), 0o644); err != nil {
		t.Fatal(err)
	}
	var exists *exercise.ExistsError
	if err := e.Start(dir, p, "the task"); !errors.As(err, &exists) {
		t.Errorf("second start: %v; want an ExistsError", err)
	}
	path, err := e.WriteSolution(dir, p)
	if err != nil || filepath.Base(path) != "bad-rkey.solution.c" {
		t.Errorf("solution at %q, %v", path, err)
	}
	if got, _ := os.ReadFile(mine); string(got) != "my work" {
		t.Errorf("the learner's file became %q", got)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	for _, want := range []string{"the task", "rdmatour exercise check bad-rkey --dir .", "./bad-rkey client SERVER_IP"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
}
