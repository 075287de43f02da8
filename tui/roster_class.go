package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/workshop"
)

// The class on the roster screen: what the room runs (its plan, on the
// header), and the room's question: how many answered, until r reveals
// the picks next to what happened on each attendee's QP; v opens the
// revote; n moves the room to the next lesson between runs.

// ClassRoom is the part of a *workshop.Room that runs the class. A
// RosterSource without it (a replayed or fake roster) has no plan line
// and no question, and n, r and v do nothing.
type ClassRoom interface {
	Plan() workshop.Plan
	NextLesson() workshop.Plan
	Tally() workshop.Tally
	Reveal()
	Revote()
}

// class is the room's plan and question as the screen last read them.
type class struct {
	plan  workshop.Plan
	tally workshop.Tally
	ok    bool // the source is a ClassRoom
}

// readClass reads the plan and the tally (at each refresh).
func (m *workshopModel) readClass() {
	c, ok := m.src.(ClassRoom)
	if !ok {
		return
	}
	m.class = class{plan: c.Plan(), tally: c.Tally(), ok: true}
}

// classKey handles n, r and v; it says whether msg was one of them.
func (m *workshopModel) classKey(msg tea.KeyPressMsg) bool {
	c, ok := m.src.(ClassRoom)
	if !ok {
		return false
	}
	switch msg.String() {
	case "n":
		p := c.NextLesson()
		m.status = text.Text{EN: "the room runs " + planFlags(p) + " from the next run on: attendees start `rdmatour client` again to follow it",
			ZH: "从下一次运行起教室跑 " + planFlags(p) + "：学员重新运行 `rdmatour client` 即可跟上"}.In(m.lang)
	case "r":
		c.Reveal()
		m.status = text.Text{EN: "revealed: the room's picks next to what happened on each QP", ZH: "已揭晓：全班的选择与每个 QP 上实际发生的并列"}.In(m.lang)
	case "v":
		c.Revote()
		m.status = text.Text{EN: "revote: each attendee's next run asks again; r reveals both rounds", ZH: "重新投票：学员下一次运行会再问一次；按 r 揭晓两轮"}.In(m.lang)
	default:
		return false
	}
	m.readClass()
	return true
}

// planFlags names a plan as the flags that start it.
func planFlags(p workshop.Plan) string {
	if p.Lesson == nil {
		return "--tour " + p.Tour.String()
	}
	return "--tour " + p.Tour.String() + " --lesson " + p.Lesson.Name
}

// planHead is the header's words for what the room runs ("" for a
// source that has no plan).
func (m *workshopModel) planHead() string {
	if !m.class.ok {
		return ""
	}
	return "  " + m.styles.Bold.R(planFlags(m.class.plan))
}

// classLines are the question's lines under the header: its tally,
// fitted to the screen (none when the room's lesson asks nothing).
func (m *workshopModel) classLines() []string {
	var out []string
	for _, l := range m.class.tally.Lines(m.lang) {
		out = append(out, termtext.Fit(strings.TrimRight(l, " "), m.w))
	}
	return out
}

// rosterFooter is the roster's help line: with a class, its keys too.
func (m *workshopModel) rosterFooter() string {
	if m.class.ok {
		return text.Text{EN: "↑/↓ select  enter spotlight  n next lesson  r reveal  v revote  tab panes  z zoom  s save  ? help  q end",
			ZH: "↑/↓ 选择  enter 聚焦  n 下一课  r 揭晓  v 重新投票  tab 切换面板  z 放大  s 保存  ? 帮助  q 结束"}.In(m.lang)
	}
	return text.Text{EN: "↑/↓ select  enter spotlight  tab panes  z zoom  o stuck first  s save  ? help  q end the workshop",
		ZH: "↑/↓ 选择  enter 聚焦  tab 切换面板  z 放大  o 卡住的排前面  s 保存  ? 帮助  q 结束 workshop"}.In(m.lang)
}
