package pane

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

func (in *Input) stepStatus(side, idx int) (steps.StepStatus, bool) {
	if side >= len(in.Snaps) || idx < 0 || idx >= len(in.Snaps[side].Steps) {
		return steps.StepStatus{}, false
	}
	return in.Snaps[side].Steps[idx], true
}

func (in *Input) roleName(side int) string { return in.Snaps[side].Role.String() }

func (in *Input) stepTitle(ss steps.StepStatus) string {
	switch in.Lang {
	case text.ZH:
		return ss.Title.In(text.ZH)
	case text.Both:
		return ss.Title.EN + " · " + ss.Title.ZH
	}
	return ss.Title.EN
}

func (in *Input) stepsTitle(side int) string {
	t := text.Text{EN: "Steps", ZH: "步骤"}.Label(in.Lang)
	if in.Demo {
		t = in.roleName(side) + " · " + t
	}
	done := 0
	for _, ss := range in.Snaps[side].Steps {
		if ss.State == steps.Succeeded {
			done++
		}
	}
	return fmt.Sprintf("%s %d/%d", t, done, len(in.Snaps[side].Steps))
}

// stepsLines lists the tour with status marks; cur is the line to keep in
// view. Other steps' titles end in "…" where the pane is too narrow; the
// current one's wraps, whole (wholeLine).
func (in *Input) stepsLines(side, w int) ([]string, int) {
	st := in.Styles
	snap := in.Snaps[side]
	nextSide, nextIdx, hasNext := in.nextTurn()
	lines := make([]string, 0, len(snap.Steps))
	cur := 0
	for i, ss := range snap.Steps {
		mark := " "
		switch ss.State {
		case steps.Active:
			mark = st.Running.R(in.Spinner)
		case steps.Succeeded:
			mark = st.OK.R("✓")
			if ExpectedError(ss) {
				mark = st.Expected.R("!")
			}
		case steps.FailedState:
			mark = st.Err.R("✗")
		}
		text := fmt.Sprintf("%2d %s", i+1, in.stepTitle(ss))
		isNext := hasNext && !in.Running && nextSide == side && nextIdx == i
		switch {
		case in.Look.On && in.Look.Side == side && in.Look.Idx == i:
			mark = st.Expected.R("◆")
			text = st.Expected.R(text)
			cur = i
		case in.Look.On && isNext:
			text = st.Dim.R(text) // the present's next step is not what is shown
		case ss.State == steps.Active || (in.Running && in.Run.Side == side && in.Run.Idx == i):
			text = st.Running.R(text)
			cur = i
		case isNext:
			mark = st.Bold.R("›")
			text = st.Bold.R(text)
			cur = i
		case ss.State == steps.FailedState:
			text = st.Err.R(text)
			cur = i
		case ExpectedError(ss):
			text = st.Expected.R(text)
		case ss.State == steps.Pending:
			text = st.Dim.R(text)
		}
		lines = append(lines, mark+" "+text)
	}
	if snap.Done && !snap.Failed && !in.Look.On {
		cur = len(lines) - 1
	}
	return wholeLine(lines, cur, w), cur
}

// wholeLine wraps line cur of lines to w cells (a hanging indent under
// the title), leaving the others one a line.
func wholeLine(lines []string, cur, w int) []string {
	if w <= 0 || cur < 0 || cur >= len(lines) || termtext.Width(lines[cur]) <= w {
		return lines
	}
	out := append([]string(nil), lines[:cur]...)
	out = append(out, termtext.WrapStyled(lines[cur], w, "     ")...)
	return append(out, lines[cur+1:]...)
}

// ExpectedError says the step ended with the error its lesson is about.
func ExpectedError(ss steps.StepStatus) bool {
	return ss.State == steps.Succeeded && ss.Outcome != nil && ss.Outcome.Expected
}
