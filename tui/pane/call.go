package pane

import (
	"fmt"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// expectedLines is the call pane's block for a lesson's expected error:
// a headline, then the error explained, in the chosen language(s).
func (in *Input) expectedLines(o *steps.Outcome, w int) []string {
	st := in.Styles
	var out []string
	head := func(s string) {
		for _, l := range termtext.Wrap(s, w) {
			out = append(out, st.Expected.R(l))
		}
	}
	body := func(s string) {
		for _, l := range termtext.Wrap(s, w-2) {
			out = append(out, st.Expected.R("│")+" "+l)
		}
	}
	switch in.Lang {
	case text.ZH:
		head(ExpectedZH)
		body(o.Failure.In(text.ZH))
	case text.Both:
		head(ExpectedEN)
		body(o.Failure.EN)
		head(ExpectedZH)
		body(o.Failure.In(text.ZH))
	default:
		head(ExpectedEN)
		body(o.Failure.EN)
	}
	return out
}

// The expected-error headlines.
const (
	ExpectedEN = "EXPECTED ERROR — the point of this lesson"
	ExpectedZH = "预期错误 EXPECTED ERROR —— 本课的重点："
)

func (in *Input) callTitle() string {
	side, idx := in.curStep()
	t := text.Text{EN: "C call", ZH: "C 调用"}.Label(in.Lang)
	if ss, ok := in.stepStatus(side, idx); ok {
		t += fmt.Sprintf(" · %d. %s", idx+1, in.stepTitle(ss))
		if in.Demo {
			t = in.roleName(side) + " · " + t
		}
	}
	return t
}

// callLines: what the step just run executed (actual values), what it
// produced, and the next call in its generic form.
func (in *Input) callLines(w int) []string {
	st := in.Styles
	var out []string
	side, idx := in.curStep()
	ss, ok := in.stepStatus(side, idx)
	switch {
	case !ok:
	case in.Running && !in.Look.On:
		out = append(out, in.waitingLines(side, idx, w)...)
		for _, l := range termtext.Wrap(ss.Call, w) {
			out = append(out, st.Call.R(l))
		}
	case ss.Outcome != nil:
		out = append(out, in.outcomeLines(ss.Outcome, w)...)
	default:
		out = append(out, st.Dim.R(in.pressToRun()))
		for _, l := range termtext.Wrap(ss.Call, w) {
			out = append(out, st.Call.R(l))
		}
		return out
	}
	if in.Running || in.Look.On {
		return out
	}
	if in.AllDone {
		out = append(out, "")
		for _, l := range in.inLangs(guide.NextToTry(in.Config), w) {
			out = append(out, st.Bold.R(l))
		}
		for _, l := range in.inLangs(guide.RealTools(in.Config, in.ownSnapshot()), w) {
			out = append(out, st.Dim.R(l))
		}
	}
	if ns, ni, more := in.nextTurn(); more {
		if nss, ok := in.stepStatus(ns, ni); ok {
			lead := text.Text{EN: "next: ", ZH: "下一步："}.In(in.Lang)
			if in.Demo {
				lead += in.roleName(ns) + " "
			}
			for i, l := range termtext.Wrap(lead+nss.Call, w) {
				if i == 0 {
					out = append(out, st.Bold.R(l))
				} else {
					out = append(out, l)
				}
			}
			out = append(out, in.editCallLines(nss.Call, w)...)
		}
	}
	return out
}

// outcomeLines is what a step that ran did: the lesson's expected error
// first, the C it made, its results and its note.
func (in *Input) outcomeLines(o *steps.Outcome, w int) []string {
	st := in.Styles
	var out []string
	// A lesson's expected error comes first: it is what the learner
	// ran the lesson for, and the call pane is short on a small screen.
	if o.Expected {
		out = append(out, in.expectedLines(o, w)...)
	}
	for _, l := range termtext.Wrap(o.Call, w) {
		out = append(out, st.Call.R(l))
	}
	for _, kv := range o.Results {
		// A result may be what the peer sent (the buffer, the
		// SEND text): steps escapes it; termtext.Safe is the net.
		for _, l := range termtext.Wrap(kv.Name.In(in.Lang)+" = "+termtext.Safe(kv.Value.In(in.Lang)), w-2) {
			out = append(out, "  "+l)
		}
	}
	out = append(out, guide.MeasureChart(o.Measured, in.Lang, w)...)
	if n := o.Note.In(in.Lang); n != "" {
		for _, l := range termtext.Wrap(n, w) {
			out = append(out, st.Dim.R(l))
		}
	}
	if in.Lang == text.Both && o.Note.ZH != "" {
		for _, l := range termtext.Wrap(o.Note.ZH, w) {
			out = append(out, st.Dim.R(l))
		}
	}
	return out
}

// pressToRun is the call pane's line above a step not run yet.
func (in *Input) pressToRun() string {
	if in.Replaying {
		return text.Text{EN: "Press enter to see this call as it was recorded:", ZH: "按 enter 查看录制下来的这次调用："}.In(in.Lang)
	}
	return text.Text{EN: "Press enter to make this call:", ZH: "按 enter 执行这个调用："}.In(in.Lang)
}
