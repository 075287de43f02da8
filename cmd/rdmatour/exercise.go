package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rdmatour/rdmatour/exercise"
	"github.com/rdmatour/rdmatour/progress"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

const exerciseUsage = `Usage: rdmatour exercise [list]
       rdmatour exercise start NAME [--dir DIR]     write DIR/NAME.c, a Makefile and a README
       rdmatour exercise check NAME [--dir DIR]     build it, run it against rdmatour, give a verdict
       rdmatour exercise watch NAME [--dir DIR]     check again on every save (Ctrl-C ends it)
       rdmatour exercise hint NAME                  the next of three hints
       rdmatour exercise solution NAME [--dir DIR]  write DIR/NAME.solution.c beside yours

DIR is NAME (a directory of that name here) unless --dir says otherwise.
Exit status: 0 done (check: a pass); 1 a failure (check: a fail); 2 a
mistake on the command line.

`

// exerciseRun is one `rdmatour exercise` command line, parsed.
type exerciseRun struct {
	c     console
	lang  text.Lang
	store progress.Store
	verb  string
	ex    exercise.Exercise
	dir   string
	limit duration // check: how long the program may run
	port  int      // check: the rdma_cm port (0: one from the process id)
}

// runExercise is `rdmatour exercise`: it returns the exit status.
func runExercise(ctx context.Context, args []string, c console) int {
	r, err := parseExerciseArgs(args, c)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(c.stderr, "rdmatour exercise: %s\n", ue.in(r.lang))
		return 2
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "rdmatour exercise: %v\n", err)
		return 2
	}
	switch r.verb {
	case "list":
		return r.list()
	case "start":
		return r.start(ctx)
	case "hint":
		return r.hint()
	case "solution":
		return r.solution(ctx)
	case "check":
		return r.check(ctx)
	case "watch":
		return r.watch(ctx)
	}
	return 2 // parseExerciseArgs let through only the verbs above
}

// exerciseVerbs are the verbs and whether each names an exercise.
var exerciseVerbs = map[string]bool{"list": false, "start": true, "check": true, "watch": true, "hint": true, "solution": true}

// parseExerciseArgs reads the verb, the exercise's name and the flags, in
// any order.
func parseExerciseArgs(args []string, c console) (exerciseRun, error) {
	r := exerciseRun{c: c, lang: text.LangFromEnv(c.getenv), limit: duration(defaultCheckLimit)}
	fs := flag.NewFlagSet("rdmatour exercise", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() { fmt.Fprint(c.stderr, exerciseUsage); fs.PrintDefaults() }
	fs.StringVar(&r.dir, "dir", "", "the `DIR` the exercise's files are in (default: a directory named after the exercise)")
	fs.Var(flagOf(&r.lang, text.ParseLang), "lang", "`LANG`: en | zh | both (the locale picks the default)")
	fs.Var(flagOf(&r.limit, parseDuration), "time-limit", "check: how long the program may run before it is stopped (`DURATION`)")
	fs.IntVar(&r.port, "port", 0, "check: the rdma_cm `PORT` the program and rdmatour meet on (default: one picked from rdmatour's process id)")
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return r, err
	}
	if r.port < 0 || r.port > 65535 {
		return r, usagef("--port %d is not a port: give one from 1 to 65535, or leave it out", r.port)
	}
	if len(positional) == 0 {
		positional = []string{"list"}
	}
	named, ok := exerciseVerbs[positional[0]]
	if !ok {
		return r, usagef("unknown exercise command %q: use list, start, check, watch, hint or solution", positional[0])
	}
	r.verb = positional[0]
	if want := map[bool]int{true: 2, false: 1}[named]; len(positional) != want {
		if named {
			return r, usagef("rdmatour exercise %s needs one exercise NAME (rdmatour exercise list shows them)", r.verb)
		}
		return r, usagef("rdmatour exercise list takes no NAME")
	}
	if named {
		if r.ex, err = exercise.Find(positional[1]); err != nil {
			return r, usagef("%v", err)
		}
		if r.dir == "" {
			r.dir = r.ex.Name
		}
	}
	dir, err := progress.DefaultDir(c.getenv)
	r.store = progress.Store{Dir: dir}
	return r, err
}

// parseInterleaved parses fs's flags anywhere among the positional
// arguments and returns those.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// say writes t to w in the run's language (both: English, then Chinese).
func (r exerciseRun) say(w io.Writer, t text.Text) {
	if r.lang == text.Both && t.ZH != "" && t.ZH != t.EN {
		fmt.Fprintln(w, t.EN)
		fmt.Fprintln(w, t.ZH)
		return
	}
	fmt.Fprintln(w, t.In(r.lang))
}

// load reads the progress, telling the learner of a file set aside.
func (r exerciseRun) load() progress.File {
	f, aside, err := r.store.Load()
	r.reportProgress(aside, err)
	return f
}

// update changes the progress; a progress file that cannot be written
// is reported, never the end of the command.
func (r exerciseRun) update(change func(*progress.File)) {
	aside, err := r.store.Update(change)
	r.reportProgress(aside, err)
}

func (r exerciseRun) reportProgress(aside *progress.SetAside, err error) {
	if aside != nil {
		en, zh := aside.Message()
		r.say(r.c.stderr, text.Text{EN: en, ZH: zh})
	}
	if err != nil {
		r.say(r.c.stderr, text.Text{EN: "rdmatour: progress not saved: " + err.Error(), ZH: "rdmatour：进度没有保存：" + err.Error()})
	}
}

// programs writes the exercise's programs from the tour, run on two
// simulated NICs (nothing here touches a device).
func (r exerciseRun) programs(ctx context.Context) (exercise.Programs, error) {
	return r.ex.Programs(ctx, sim.New(sim.Options{}), sim.New(sim.Options{}))
}

// pageLang is the language of the page text a command shows.
func (r exerciseRun) pageLang() string {
	if r.lang == text.ZH {
		return "zh"
	}
	return "en"
}

// stateWords is an exercise's state as the list shows it.
func stateWords(st progress.ExerciseState) text.Text {
	hints := ""
	hintsZH := ""
	if st.Hints > 0 {
		hints = fmt.Sprintf(", %d hint%s", st.Hints, map[bool]string{true: "", false: "s"}[st.Hints == 1])
		hintsZH = fmt.Sprintf("，用了 %d 个提示", st.Hints)
	}
	if st.SolutionSeen {
		hints += ", solution"
		hintsZH += "，看过答案"
	}
	switch {
	case st.Passed:
		return text.Text{EN: "passed" + hints, ZH: "已通过" + hintsZH}
	case st.Started || st.Hints > 0 || st.SolutionSeen:
		return text.Text{EN: "started" + hints, ZH: "已开始" + hintsZH}
	}
	return text.Text{EN: "new", ZH: "未开始"}
}

// list prints every exercise, one a line: its name, its state, its kind
// and title.
func (r exerciseRun) list() int {
	f := r.load()
	r.say(r.c.stdout, text.Text{EN: "Exercises, easiest first: rdmatour exercise start NAME", ZH: "练习，由易到难：rdmatour exercise start NAME"})
	for _, e := range exercise.Catalogue() {
		st := stateWords(f.Exercise(e.Name))
		for _, one := range r.langs() {
			fmt.Fprintf(r.c.stdout, "  %-20s %-30s %-12s %s\n", e.Name, st.In(one), e.Kind.Words().In(one), e.Title.In(one))
		}
	}
	return 0
}

// langs are the languages to print a line in: one, or both.
func (r exerciseRun) langs() []text.Lang {
	if r.lang == text.Both {
		return []text.Lang{text.EN, text.ZH}
	}
	return []text.Lang{r.lang}
}

// pageName is where the exercise's page is, for the messages.
func (r exerciseRun) pageName() string {
	return "docs/" + r.pageLang() + "/" + r.ex.Page() + ".md"
}

// joinLines indents lines for the terminal.
func joinLines(lines []string) string { return "  " + strings.Join(lines, "\n  ") }
