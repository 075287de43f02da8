package tui

import (
	"fmt"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
)

// expectedLines is the call pane's block for a lesson's expected error:
// a headline, then the error explained, in the chosen language(s).
func (m *model) expectedLines(o *steps.Outcome, w int) []string {
	st := m.styles
	var out []string
	head := func(s string) {
		for _, l := range wrap(s, w) {
			out = append(out, st.Expected.R(l))
		}
	}
	body := func(s string) {
		for _, l := range wrap(s, w-2) {
			out = append(out, st.Expected.R("│")+" "+l)
		}
	}
	switch m.lang {
	case steps.LangZH:
		head(expectedZH)
		body(o.Failure.In(steps.LangZH.String()))
	case steps.LangBoth:
		head(expectedEN)
		body(o.Failure.EN)
		head(expectedZH)
		body(o.Failure.In(steps.LangZH.String()))
	default:
		head(expectedEN)
		body(o.Failure.EN)
	}
	return out
}

// The expected-error headlines.
const (
	expectedEN = "EXPECTED ERROR — the point of this lesson"
	expectedZH = "预期错误 EXPECTED ERROR —— 本课的重点："
)

func (m *model) callTitle() string {
	side, idx := m.curStep()
	t := title(m.lang, "C call", "C 调用")
	if ss, ok := m.stepStatus(side, idx); ok {
		t += fmt.Sprintf(" · %d. %s", idx+1, m.stepTitle(ss))
		if m.demo {
			t = m.roleName(side) + " · " + t
		}
	}
	return t
}

// callLines: what the step just run executed (actual values), what it
// produced, and the next call in its generic form.
func (m *model) callLines(w int) []string {
	st := m.styles
	var out []string
	side, idx := m.curStep()
	ss, ok := m.stepStatus(side, idx)
	switch {
	case !ok:
	case m.running && !m.look.on:
		out = append(out, m.waitingLines(side, idx, w)...)
		for _, l := range wrap(ss.Call, w) {
			out = append(out, st.Call.R(l))
		}
	case ss.Outcome != nil:
		// A lesson's expected error comes first: it is what the learner
		// ran the lesson for, and the call pane is short on a small screen.
		if ss.Outcome.Expected {
			out = append(out, m.expectedLines(ss.Outcome, w)...)
		}
		for _, l := range wrap(ss.Outcome.Call, w) {
			out = append(out, st.Call.R(l))
		}
		for _, kv := range ss.Outcome.Results {
			// A result may be what the peer sent (the buffer, the
			// SEND text): steps escapes it; termSafe is the net.
			for _, l := range wrap(m.resultName(kv.Name)+" = "+termSafe(m.resultValue(kv.Value)), w-2) {
				out = append(out, "  "+l)
			}
		}
		if n := ss.Outcome.Note.In(textLang(m.lang)); n != "" {
			for _, l := range wrap(n, w) {
				out = append(out, st.Dim.R(l))
			}
		}
		if m.lang == steps.LangBoth && ss.Outcome.Note.ZH != "" {
			for _, l := range wrap(ss.Outcome.Note.ZH, w) {
				out = append(out, st.Dim.R(l))
			}
		}
	default:
		out = append(out, st.Dim.R(m.pressToRun()))
		for _, l := range wrap(ss.Call, w) {
			out = append(out, st.Call.R(l))
		}
		return out
	}
	if m.running || m.look.on {
		return out
	}
	if m.allDone() {
		out = append(out, "")
		for _, l := range m.inLangs(guide.NextToTry(m.tourConfig()), w) {
			out = append(out, st.Bold.R(l))
		}
	}
	if ns, ni, more := m.nextTurn(); more {
		if nss, ok := m.stepStatus(ns, ni); ok {
			lead := tr(m.lang, "next: ", "下一步：")
			if m.demo {
				lead += m.roleName(ns) + " "
			}
			for i, l := range wrap(lead+nss.Call, w) {
				if i == 0 {
					out = append(out, st.Bold.R(l))
				} else {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

func (m *model) tourOf(side int) []steps.Step {
	if side >= len(m.tours) {
		return nil
	}
	return m.tours[side]
}
