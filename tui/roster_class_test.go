package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/workshop"
)

// classFake is a roster with a class: a plan and a question whose tally
// the keys change.
type classFake struct {
	*fakeRoom
	plan     workshop.Plan
	revealed bool
	round    int
	nexts    int
}

func (c *classFake) Plan() workshop.Plan { return c.plan }
func (c *classFake) NextLesson() workshop.Plan {
	c.nexts++
	c.plan.Lesson, _ = steps.ParseLesson("out-of-bounds")
	return c.plan
}
func (c *classFake) Reveal() { c.revealed = true }
func (c *classFake) Revote() { c.round, c.revealed = 2, false }
func (c *classFake) Tally() workshop.Tally {
	q, choices := c.plan.Lesson.AttendeeQuestion()
	n := len(choices)
	t := workshop.Tally{Lesson: c.plan.Lesson.Name, Question: q, Choices: choices, Round: c.round, Revealed: c.revealed,
		First: make([]int, n), Second: make([]int, n), Seen: make([]int, n), Answered1: 3}
	t.First[0], t.First[1], t.Seen[1] = 2, 1, 3
	return t
}

// TestRosterClassKeys: the header says what the room runs; the answers
// stay hidden until r; v opens round 2; n moves the room on.
func TestRosterClassKeys(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	l, _ := steps.ParseLesson("bad-rkey")
	room := &classFake{fakeRoom: newFakeRoom(3, at), plan: workshop.Plan{Tour: steps.TourWrite, Lesson: l}, round: 1}
	m := newWorkshopModel(room, text.EN, true, func() time.Time { return at })
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	press := func(k rune) string {
		m.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
		return m.View().Content
	}
	s := m.View().Content
	if !strings.Contains(s, "--tour write --lesson bad-rkey") || !strings.Contains(s, "answered: 3 first votes") || strings.Contains(s, "██ 2") {
		t.Fatalf("before r:\n%s", s)
	}
	if s = press('r'); !strings.Contains(s, "1  ██ 2") || !strings.Contains(s, "█ 3") || !strings.Contains(s, "revealed:") {
		t.Errorf("after r:\n%s", s)
	}
	if s = press('v'); !strings.Contains(s, "round 2") || strings.Contains(s, "1  ██ 2") {
		t.Errorf("after v:\n%s", s)
	}
	if s = press('n'); room.nexts != 1 || !strings.Contains(s, "--tour write --lesson out-of-bounds") {
		t.Errorf("after n (%d calls):\n%s", room.nexts, s)
	}
}

// A roster with no class (a replay, a fake) shows no plan, and n, r and
// v do nothing.
func TestRosterWithoutClass(t *testing.T) {
	m := workshopAt(t, 3, 100, 30)
	before := m.View().Content
	for _, k := range []rune{'n', 'r', 'v'} {
		m.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
	}
	if after := m.View().Content; after != before || strings.Contains(after, "--lesson") {
		t.Errorf("keys changed a classless roster:\n%s", after)
	}
}
