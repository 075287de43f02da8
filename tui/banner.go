package tui

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// banner is the tour's end (the Result) or its error, full width.
func (m *model) banner(w int) []string {
	if out := m.historyBanner(w); len(out) > 0 {
		return out
	}
	if out := m.errorBanner(w); len(out) > 0 {
		return out
	}
	return m.endBanner(w)
}

// bannerLine wraps text into full-width banner lines in style s.
func bannerLine(s termtext.Style, mark, text string, w int) []string {
	var out []string
	for _, l := range termtext.Wrap(mark+text, w-2) {
		out = append(out, s.R(termtext.Fit(" "+l, w)))
	}
	return out
}

// errorBanner says which step failed on which side, and why.
func (m *model) errorBanner(w int) []string {
	st := m.styles
	var out []string
	for i, snap := range m.snaps {
		if m.end.errs[i] == nil && !snap.Failed {
			continue
		}
		who := snap.Role.String()
		var stepTitle text.Text // each banner line in its own language
		for _, ss := range snap.Steps {
			if ss.State == steps.FailedState {
				stepTitle = ss.Title
			}
		}
		explain := func(lang text.Lang) string {
			if m.end.errs[i] != nil {
				return steps.ExplainIn(m.end.errs[i], lang)
			}
			return snap.Err
		}
		en := fmt.Sprintf("%s: %s failed: %s", who, stepTitle.In(text.EN), m.inlineCode(explain(text.EN)))
		zh := fmt.Sprintf("%s：「%s」失败：%s", who, stepTitle.In(text.ZH), m.inlineCode(explain(text.ZH)))
		switch m.lang {
		case text.Both:
			out = append(out, bannerLine(st.ErrBanner, "✗ ", en, w)...)
			out = append(out, bannerLine(st.ErrBanner, "  ", zh, w)...)
		case text.ZH:
			out = append(out, bannerLine(st.ErrBanner, "✗ ", zh, w)...)
		default:
			out = append(out, bannerLine(st.ErrBanner, "✗ ", en, w)...)
		}
		stopped := text.Text{EN: "The tour stopped here. Press q to tear down and quit.", ZH: "教程到此中止。按 q 释放资源并退出。"}.In(m.lang)
		if m.replaying() {
			stopped = text.Text{EN: "The recorded tour stopped here. Press q to quit.", ZH: "录制的教程到此中止。按 q 退出。"}.In(m.lang)
		}
		out = append(out, st.Err.R(termtext.Fit(" "+stopped, w)))
	}
	return out
}

// endBanner is the tour's result: what landed in the server's buffer
// and how it learned of it; or a lesson or tour complete. Its sentences
// are put together once, by settleEnd; this only lays them out.
func (m *model) endBanner(w int) []string {
	st := m.styles
	inLang := func(t text.Text) []string {
		switch m.lang {
		case text.ZH:
			return bannerLine(st.OKBanner, "✓ ", t.ZH, w)
		case text.Both:
			return append(bannerLine(st.OKBanner, "✓ ", t.EN, w), bannerLine(st.OKBanner, "  ", t.ZH, w)...)
		}
		return bannerLine(st.OKBanner, "✓ ", t.EN, w)
	}
	var out []string
	if e := m.end; e.hasResult {
		out = inLang(e.result)
	}
	if !m.in.AllDone {
		return out
	}
	// Every side says the tour is over (what to try next is in the call pane).
	if m.page.Lesson != "" {
		if what := m.end.expected.In(m.lang); what != "" {
			tally := steps.TallyText(m.snaps...)
			if tally.EN != "" {
				tally = text.Text{EN: " " + sentenceCase(tally.EN) + ".", ZH: tally.ZH + "。"}
			}
			return append(out, bannerLine(st.OKBanner, "✓ ", text.Text{EN: "Lesson complete: the expected error (" + what + ") happened, and every step after it went as the lesson says." + tally.EN + " L: the lesson page · q: quit.", ZH: "课程完成：预期的错误（" + what + "）出现了，之后每一步都和课程讲的一样。" + tally.ZH + "L：课程讲解 · q：退出。"}.In(m.lang), w)...)
		}
	}
	next := m.end.next.In(m.lang)
	done := text.Text{EN: "Tour complete: every resource is released. ", ZH: "教程完成：所有资源都已释放。"}.In(m.lang)
	if m.replaying() {
		done = text.Text{EN: "Replay complete: this is where the recorded tour ended. ", ZH: "回放完成：录制的教程到此结束。"}.In(m.lang)
	}
	return append(out, bannerLine(st.OKBanner, "✓ ", done+next+text.Text{EN: " — q quits.", ZH: " —— 按 q 退出。"}.In(m.lang), w)...)
}

// settleEnd puts the end banner's sentences together from the snapshots
// as they are after this Update (sync): the result, the lesson's expected error, and what
// to try next, each in both languages.
func (m *model) settleEnd() {
	e := &m.end
	e.hasResult, e.result = false, text.Text{}
	for _, snap := range m.snaps {
		r := snap.Result
		if r == nil {
			continue
		}
		// The catalogue words the result (Result.Sentence).
		e.hasResult, e.result = true, r.Sentence()
		break
	}
	e.expected = m.firstExpected()
	e.next = guide.NextToTryShort(m.tourConfig())
}

// firstExpected names the first expected error of the lesson in the
// order the steps ran (the root cause; later ones follow from it).
func (m *model) firstExpected() text.Text {
	var order []steps.Turn
	if m.demo {
		order = m.plan
	} else {
		for i := range m.snaps[0].Steps {
			order = append(order, steps.Turn{Index: i})
		}
	}
	for _, t := range order {
		side := 0
		if m.demo && t.Side == steps.Client {
			side = 1
		}
		if side >= len(m.snaps) || t.Index >= len(m.snaps[side].Steps) {
			continue
		}
		ss := m.snaps[side].Steps[t.Index]
		if !pane.ExpectedError(ss) {
			continue
		}
		if side < len(m.tours) && t.Index < len(m.tours[side]) && m.tours[side][t.Index].Expect != nil {
			return m.tours[side][t.Index].Expect.What
		}
		return ss.Outcome.Failure
	}
	return text.Text{}
}

// tourNotifies says the tour has a notify step (the catalogue's word).
func tourNotifies(kind steps.TourKind) bool {
	d, _ := steps.TourOf(kind)
	return d.Notifies
}

// sentenceCase is s with its first letter upper case.
func sentenceCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
