package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/rdmatour/rdmatour/exercise"
	"github.com/rdmatour/rdmatour/progress"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// runProgress is `rdmatour progress [--lang L]`: the curriculum as a map,
// each item done, next or not yet.
func runProgress(args []string, c console) int {
	r := exerciseRun{c: c, lang: text.LangFromEnv(c.getenv)}
	if len(args) == 2 && (args[0] == "--lang" || args[0] == "-lang") {
		lang, err := text.ParseLang(args[1])
		if err != nil {
			fmt.Fprintf(c.stderr, "rdmatour progress: %v\n", err)
			return 2
		}
		r.lang, args = lang, nil
	}
	if len(args) != 0 {
		fmt.Fprintln(c.stderr, "Usage: rdmatour progress [--lang en|zh|both]\n\nShows the tours, lessons and exercises: done, next, not yet.")
		return 2
	}
	dir, err := progress.DefaultDir(c.getenv)
	if err != nil {
		fmt.Fprintf(c.stderr, "rdmatour progress: %v\n", err)
		return 1
	}
	r.store = progress.Store{Dir: dir}
	f := r.load()
	for _, lang := range r.langs() {
		writeProgressMap(c.stdout, f, r.store.Path(), lang)
	}
	return 0
}

// mapItem is one line of the map.
type mapItem struct {
	name   string
	done   bool
	detail text.Text // after "done" (hints used, …)
}

// writeProgressMap writes the map in one language.
func writeProgressMap(w io.Writer, f progress.File, path string, lang text.Lang) {
	fmt.Fprintf(w, "%s %s\n", text.Text{EN: "Your progress, kept in", ZH: "你的进度，保存在"}.In(lang), path)
	var tours, lessons, exercises []mapItem
	for _, name := range steps.TourNames() {
		tours = append(tours, mapItem{name: name, done: f.TourDone(name)})
	}
	for _, l := range steps.Lessons() {
		lessons = append(lessons, mapItem{name: l.Name, done: f.LessonDone(l.Name)})
	}
	for _, e := range exercise.Catalogue() {
		st := f.Exercise(e.Name)
		item := mapItem{name: e.Name, done: st.Passed}
		if st.Started || st.Hints > 0 {
			item.detail = stateWords(st)
		}
		exercises = append(exercises, item)
	}
	writeMapPart(w, text.Text{EN: "Tours (rdmatour demo --tour NAME)", ZH: "教程（rdmatour demo --tour NAME）"}, tours, lang)
	writeMapPart(w, text.Text{EN: "Lessons (rdmatour demo --lesson NAME)", ZH: "课程（rdmatour demo --lesson NAME）"}, lessons, lang)
	writeMapPart(w, text.Text{EN: "Exercises (rdmatour exercise start NAME)", ZH: "练习（rdmatour exercise start NAME）"}, exercises, lang)
	writePredictions(w, f, lang)
}

// writeMapPart writes one part: done items ✓, the first not done is
// next (→), the rest not yet.
func writeMapPart(w io.Writer, title text.Text, items []mapItem, lang text.Lang) {
	fmt.Fprintf(w, "\n%s\n", title.In(lang))
	next := true
	for _, it := range items {
		mark, state := " ", text.Text{EN: "not yet", ZH: "还没做"}
		switch {
		case it.done:
			mark, state = "✓", text.Text{EN: "done", ZH: "完成"}
		case next:
			mark, state, next = "→", text.Text{EN: "next", ZH: "下一个"}, false
		}
		line := state.In(lang)
		if it.detail.EN != "" {
			line = it.detail.In(lang)
		}
		fmt.Fprintf(w, "  %s %-22s %s\n", mark, it.name, line)
	}
}

// writePredictions writes the predictions right and wrong, per lesson.
func writePredictions(w io.Writer, f progress.File, lang text.Lang) {
	if len(f.Predictions) == 0 {
		return
	}
	var right, wrong int
	names := make([]string, 0, len(f.Predictions))
	for name, t := range f.Predictions {
		right, wrong = right+t.Right, wrong+t.Wrong
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "\n%s\n", text.Text{EN: fmt.Sprintf("Predictions: %d right, %d wrong", right, wrong), ZH: fmt.Sprintf("预测：猜对 %d 次，猜错 %d 次", right, wrong)}.In(lang))
	for _, name := range names {
		t := f.Predictions[name]
		fmt.Fprintf(w, "  %-22s %s\n", name, text.Text{EN: fmt.Sprintf("%d right, %d wrong", t.Right, t.Wrong), ZH: fmt.Sprintf("对 %d，错 %d", t.Right, t.Wrong)}.In(lang))
	}
}
