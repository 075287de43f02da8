package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/rdmatour/rdmatour/progress"
	"github.com/rdmatour/rdmatour/text"
)

const reviewUsage = `Usage: rdmatour review [demo flags: --plain, --backend, --lang, ...]

Picks two lessons whose prediction you got wrong last time (or, after
those, the ones you predicted longest ago) from your progress file, and
runs each again as rdmatour demo --lesson NAME: its question first, then
the tour that answers it.
`

// reviewCount is how many predictions one review asks again.
const reviewCount = 2

// runReview is `rdmatour review`: the picked lessons, each run as a demo
// with the flags given. It returns the highest exit status of the runs.
func runReview(ctx context.Context, args []string, c console) int {
	if slices.ContainsFunc(args, isHelpFlag) {
		fmt.Fprint(c.stdout, reviewUsage)
		return 0
	}
	if slices.ContainsFunc(args, func(a string) bool {
		return a == "--lesson" || a == "-lesson" || strings.HasPrefix(a, "--lesson=") || strings.HasPrefix(a, "-lesson=")
	}) {
		fmt.Fprintln(c.stderr, "rdmatour review: review picks the lessons itself; to run one of your choice: rdmatour demo --lesson NAME")
		return 2
	}
	o, err := parseArgs(append([]string{"demo"}, args...), c.getenv, c.stdout)
	if err != nil {
		return reportReviewArgs(err, o.lang, c)
	}
	dir, err := progress.DefaultDir(c.getenv)
	if err != nil {
		fmt.Fprintf(c.stderr, "rdmatour review: %v\n", err)
		return 1
	}
	r := exerciseRun{c: c, lang: o.lang, store: progress.Store{Dir: dir}}
	f := r.load()
	picks := f.ReviewPicks(reviewCount)
	if len(picks) == 0 {
		r.say(c.stdout, text.Text{
			EN: "Nothing to review yet: you have made no prediction. A lesson asks one before it runs: rdmatour lessons lists them; rdmatour demo --lesson NAME runs one.",
			ZH: "还没有可以复习的：你还没做过预测。每个 lesson 开始前都会问一个问题：rdmatour lessons 列出全部 lesson；rdmatour demo --lesson NAME 运行其中一个。"})
		return 0
	}
	r.say(c.stdout, text.Text{EN: "Review: predictions to make again, from " + r.store.Path(), ZH: "复习：再做一次这些预测（来自 " + r.store.Path() + "）"})
	for _, name := range picks {
		r.say(c.stdout, reviewReason(name, f.Predictions[name]))
	}
	worst := 0
	for _, name := range picks {
		if ctx.Err() != nil {
			break
		}
		o, err := parseArgs(append([]string{"demo", "--lesson", name}, args...), c.getenv, c.stdout)
		if err != nil {
			return reportReviewArgs(err, o.lang, c)
		}
		if !o.plain {
			o.plain, o.plainWhy = cursorless(c.getenv("TERM"))
		}
		worst = max(worst, runCommand(ctx, o, c))
	}
	return worst
}

// reviewReason is why a lesson was picked: its last prediction.
func reviewReason(name string, t progress.Tally) text.Text {
	when, whenZH := "", ""
	if !t.Last.IsZero() {
		when, whenZH = " ("+t.Last.Format("2006-01-02")+")", "（"+t.Last.Format("2006-01-02")+"）"
	}
	if t.LastWrong {
		return text.Text{EN: fmt.Sprintf("  %s: your last prediction was wrong%s; right %d, wrong %d so far", name, when, t.Right, t.Wrong),
			ZH: fmt.Sprintf("  %s：上一次预测错了%s；到目前为止对 %d 次，错 %d 次", name, whenZH, t.Right, t.Wrong)}
	}
	return text.Text{EN: fmt.Sprintf("  %s: right last time, and not predicted since%s; right %d, wrong %d so far", name, when, t.Right, t.Wrong),
		ZH: fmt.Sprintf("  %s：上一次猜对了，之后再没预测过%s；到目前为止对 %d 次，错 %d 次", name, whenZH, t.Right, t.Wrong)}
}

// reportReviewArgs says what was wrong with the flags, as run does.
func reportReviewArgs(err error, lang text.Lang, c console) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(c.stderr, "rdmatour review: %s\n", ue.in(lang))
		return 2
	}
	fmt.Fprintf(c.stderr, "rdmatour review: %v\n", err)
	return 2
}

func isHelpFlag(a string) bool { return a == "-h" || a == "--help" || a == "-help" }
