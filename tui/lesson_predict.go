package tui

import (
	"strconv"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// A lesson asks before it runs: the explanation pane shows the question
// (and the lesson page up to it), keys 1-4 choose, and Enter runs nothing
// until every side that asks has an answer. The steps judge the answer
// (steps.PredictionState); the model only forwards the key.

// predictKey records a 1-4 key as the pending question's answer; it
// reports whether the key was one.
func (m *model) predictKey(k string) bool {
	side, p, ok := pane.PendingPrediction(m.snaps, m.demo)
	if !ok {
		return false
	}
	n, err := strconv.Atoi(k)
	if err != nil || n < 1 || n > len(p.Choices) {
		return false
	}
	if m.sessions[side].Predict(n-1) != nil {
		return false
	}
	m.refresh()
	m.paneAt(slot{pane.Explain, 0}).Follow()
	return true
}

// lessonsHelp is the help screen's line about the lessons.
func (m *model) lessonsHelp() string {
	var names []string
	for _, l := range steps.Lessons() {
		names = append(names, l.Name)
	}
	return text.Text{EN: "Lessons (start both sides with --lesson NAME, or in the plain tour press L, choose one and press r on its page; a lesson first asks you to predict, keys 1-4): ", ZH: "课程（两端都加 --lesson NAME 启动，或者在普通教程里按 L，选一课，在它的页面上按 r；课程开始前会请你先猜一猜，按 1-4）："}.In(m.lang) + strings.Join(names, ", ")
}
