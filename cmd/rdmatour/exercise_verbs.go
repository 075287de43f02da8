package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/rdmatour/rdmatour/exercise"
	"github.com/rdmatour/rdmatour/progress"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// start writes the learner's program, the Makefile and the README.
func (r exerciseRun) start(ctx context.Context) int {
	p, err := r.programs(ctx)
	if err != nil {
		fmt.Fprintf(r.c.stderr, "rdmatour exercise: %s\n", steps.ExplainIn(err, r.lang.Primary()))
		return 1
	}
	task, err := r.ex.TaskText("en")
	if err == nil {
		err = r.ex.Start(r.dir, p, task)
	}
	var exists *exercise.ExistsError
	if errors.As(err, &exists) {
		r.say(r.c.stderr, text.Text{
			EN: "rdmatour exercise: " + exists.Error(),
			ZH: "rdmatour exercise：" + exists.Path + " 已经存在，里面可能是你的代码。换一个 --dir，或者先把它删掉"})
		return 1
	}
	if err != nil {
		fmt.Fprintf(r.c.stderr, "rdmatour exercise: %v\n", err)
		return 1
	}
	r.update(func(f *progress.File) {
		st := f.Exercise(r.ex.Name)
		st.Started = true
		f.SetExercise(r.ex.Name, st)
	})
	prog := filepath.Join(r.dir, r.ex.FileName())
	task, _ = r.ex.TaskText(r.pageLang())
	r.say(r.c.stdout, text.Text{
		EN: fmt.Sprintf("Wrote %s, a Makefile and a README.md in %s.\n\n%s\n\nBuild it with make; check it with: rdmatour exercise check %s --dir %s\nStuck? rdmatour exercise hint %s (three hints), and the page %s.",
			prog, r.dir, task, r.ex.Name, r.dir, r.ex.Name, r.pageName()),
		ZH: fmt.Sprintf("已在 %s 里写好 %s、Makefile 和 README.md。\n\n%s\n\n用 make 编译；用 rdmatour exercise check %s --dir %s 检查。\n卡住了？rdmatour exercise hint %s（共三个提示），以及页面 %s。",
			r.dir, prog, task, r.ex.Name, r.dir, r.ex.Name, r.pageName())})
	return 0
}

// hint gives the next hint not yet given; after the third, all three
// again and where the solution is.
func (r exerciseRun) hint() int {
	var used int
	r.update(func(f *progress.File) {
		st := f.Exercise(r.ex.Name)
		if st.Hints < exercise.HintCount {
			st.Hints++
		}
		used = st.Hints
		f.SetExercise(r.ex.Name, st)
	})
	if used == 0 { // the progress file could not be written: still help
		used = 1
	}
	for _, lang := range exercise.PageLangs(r.lang) {
		hints, err := r.ex.Hints(lang)
		if err != nil {
			fmt.Fprintf(r.c.stderr, "rdmatour exercise: %v\n", err)
			return 1
		}
		for i := 0; i < used; i++ {
			fmt.Fprintf(r.c.stdout, "%d/%d %s\n", i+1, exercise.HintCount, hints[i])
		}
	}
	if used == exercise.HintCount {
		r.say(r.c.stdout, text.Text{
			EN: "That was the last hint. The reference solution: rdmatour exercise solution " + r.ex.Name,
			ZH: "这是最后一个提示。参考答案：rdmatour exercise solution " + r.ex.Name})
	}
	return 0
}

// solution writes the reference solution beside the learner's file.
func (r exerciseRun) solution(ctx context.Context) int {
	p, err := r.programs(ctx)
	if err != nil {
		fmt.Fprintf(r.c.stderr, "rdmatour exercise: %s\n", steps.ExplainIn(err, r.lang.Primary()))
		return 1
	}
	path, err := r.ex.WriteSolution(r.dir, p)
	if err != nil {
		fmt.Fprintf(r.c.stderr, "rdmatour exercise: writing the solution: %v\n", err)
		return 1
	}
	r.update(func(f *progress.File) {
		st := f.Exercise(r.ex.Name)
		st.SolutionSeen = true
		f.SetExercise(r.ex.Name, st)
	})
	mine := filepath.Join(r.dir, r.ex.FileName())
	r.say(r.c.stdout, text.Text{
		EN: fmt.Sprintf("Wrote the reference solution to %s (your %s is untouched). Compare them: diff -u %s %s", path, mine, mine, path),
		ZH: fmt.Sprintf("参考答案已写到 %s（你的 %s 没有改动）。对比一下：diff -u %s %s", path, mine, mine, path)})
	return 0
}
