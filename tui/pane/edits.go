package pane

import (
	"strings"

	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// EditNote is one of the learner's edits of the step about to run, as
// the call and explanation panes show it.
type EditNote struct {
	// Name is the field (access), CName the argument in C (the 4th
	// argument of ibv_reg_mr); Value the learner's, Was the tour's.
	Name, CName, Value, Was string
	// Meaning is what the argument means, in general terms (from the
	// engine's catalogue, not a prediction of the outcome).
	Meaning text.Text
	// Lesson: the edit is the lesson's preset, not the learner's;
	// LessonName names that lesson (bad-rkey).
	Lesson     bool
	LessonName string
}

// Edits is what the edit form left for the panes: the edits of the next
// step, and a sentence about the last e or p (why nothing opened).
type Edits struct {
	Next   []EditNote
	Notice text.Text
	// CanAsk says p may ask "what will happen?" (an edit, no question yet).
	CanAsk bool
}

// editCallLines follow the next call in the call pane: each edit as a C
// comment, where the call shown is the tour's generic form (an edited
// call the engine could build already marks its own arguments).
func (in *Input) editCallLines(call string, w int) []string {
	if strings.Contains(call, ": was ") {
		return nil
	}
	var out []string
	for _, e := range in.Edits.Next {
		who := "you"
		if e.Lesson {
			who = strings.TrimSpace("lesson " + e.LessonName)
		}
		c := "/* " + who + ": " + e.Name + " = " + e.Value + ", was " + e.Was + " */"
		for _, l := range termtext.Wrap(termtext.Safe(c), w) {
			out = append(out, in.Styles.Changed.R(l))
		}
	}
	return out
}

// editExplainLines head the explanation pane: what each edited argument
// means, and what e and p do now.
func (in *Input) editExplainLines(w int) []string {
	st := in.Styles
	var out []string
	if n := in.Edits.Notice.In(in.Lang); n != "" {
		out = append(out, termtext.WrapAll([]string{st.Warn.R(n)}, w, "")...)
	}
	if len(in.Edits.Next) == 0 {
		if len(out) > 0 {
			out = append(out, "")
		}
		return out
	}
	for i, e := range in.Edits.Next {
		if i == 0 || e.Lesson != in.Edits.Next[i-1].Lesson {
			title := text.Text{EN: "Your edit", ZH: "你的修改"}
			if e.Lesson {
				title = text.Text{EN: "The lesson's edit", ZH: "本课的修改"}
			}
			out = append(out, st.Expected.R(termtext.Fit(title.In(in.Lang), w)))
		}
		head := st.Key.R(e.Name)
		if e.CName != "" && e.CName != e.Name {
			head += " (" + e.CName + ")"
		}
		out = append(out, termtext.WrapAll([]string{head + ": " + termtext.Safe(e.Value)}, w, "  ")...)
		out = append(out, termtext.WrapAll([]string{st.Dim.R(text.Text{EN: "the tour's value: ", ZH: "教程原来的值："}.In(in.Lang) + termtext.Safe(e.Was))}, w, "  ")...)
		for _, l := range in.Lang.Each() {
			out = append(out, termtext.Wrap(e.Meaning.In(l), w)...)
		}
	}
	keys := text.Text{EN: "e: edit again (Esc there keeps it) · Enter: run it", ZH: "e：再改（在表单里按 Esc 不变）· 回车：运行"}
	if in.Edits.CanAsk {
		keys = text.Text{EN: "p: predict what will happen · e: edit again · Enter: run it", ZH: "p：先猜会发生什么 · e：再改 · 回车：运行"}
	}
	out = append(out, termtext.Wrap(keys.In(in.Lang), w)...)
	return append(out, st.Dim.R(strings.Repeat("─", max(0, w))), "")
}
