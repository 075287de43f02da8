package tui

import (
	"errors"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/editform"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// The learner's own experiment: e on the step about to run opens a form
// of its editable arguments (the engine's catalogue, never a step by
// name); Enter sets them on the session, Esc leaves everything as it
// was. After an edit p asks "what will happen?" (steps.AskAboutEdit),
// answered and judged by the steps as a lesson's question is.

// editor is what the form needs of a side: a live Session (a replay has
// no edits to make).
type editor interface {
	Editable(steps.StepID) []steps.EditField
	SetEdit(steps.Edit) error
	ClearEdit(steps.StepID, string)
	Edits() steps.Edits
	AskAboutEdit() error
}

// editState is the open form, the step and side it edits, and the last
// notice (why e or p did nothing), shown until the next step runs.
type editState struct {
	form   *editform.Model
	side   int
	step   steps.StepID
	fields []steps.EditField
	notice text.Text
}

// editTarget is the step the next keypress runs and its side's editor;
// ok false with a reason when there is nothing to edit now.
func (m *model) editTarget() (side int, st steps.Step, ed editor, why text.Text) {
	side, idx, more := m.nextTurn()
	switch {
	case m.replaying():
		return 0, steps.Step{}, nil, text.Text{EN: "A replay shows what was run: nothing to edit.", ZH: "回放只展示当时运行的内容：没有可改的。"}
	case m.run.on:
		return 0, steps.Step{}, nil, text.Text{EN: "A step is running: edit the next one when it has ended.", ZH: "有一步正在运行：等它结束再改下一步。"}
	case m.look.on:
		return 0, steps.Step{}, nil, text.Text{EN: "You are looking back at a step that ran: press esc, then e edits the next step.", ZH: "你在回看已经运行过的步骤：按 esc 回来，再按 e 修改下一步。"}
	case !more:
		return 0, steps.Step{}, nil, text.Text{EN: "The tour is over: nothing left to edit.", ZH: "教程已经结束：没有可改的步骤了。"}
	}
	cannot := text.Text{EN: "This side cannot be edited.", ZH: "这一端不能修改。"}
	if side >= len(m.sessions) || side >= len(m.tours) || idx >= len(m.tours[side]) {
		return 0, steps.Step{}, nil, cannot
	}
	ed, ok := m.sessions[side].(editor)
	if !ok {
		return 0, steps.Step{}, nil, cannot
	}
	return side, m.tours[side][idx], ed, text.Text{}
}

// editKey handles e and p; it reports whether the key was one.
func (m *model) editKey(msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, m.keys.Edit):
		m.openEdit()
	case key.Matches(msg, m.keys.AskEdit):
		m.askAboutEdit()
	default:
		return false
	}
	return true
}

// openEdit opens the form on the next step, or says why it cannot.
func (m *model) openEdit() {
	side, st, ed, why := m.editTarget()
	if ed == nil {
		m.scr.edit.notice = why
		return
	}
	fields := ed.Editable(st.ID)
	if len(fields) == 0 {
		m.scr.edit.notice = text.Text{EN: "Step " + string(st.ID) + " has nothing to edit; e works on the steps whose arguments a learner can change (rdmatour edits STEP lists them).",
			ZH: "步骤 " + string(st.ID) + " 没有可改的参数；e 只对参数可以改的步骤有用（rdmatour edits STEP 会列出来）。"}
		return
	}
	who := ""
	if m.demo {
		who = st.Side.String() + " · "
	}
	title := text.Text{EN: who + "Edit " + string(st.ID) + " before it runs", ZH: who + "运行前修改 " + string(st.ID)}
	form := make([]editform.Field, len(fields))
	for i, f := range fields {
		form[i] = formField(f, m.lang)
		form[i].Range = givenRange(f, m.snaps[side].Remote)
	}
	m.scr.edit = editState{form: editform.New(title, form, m.lang), side: side, step: st.ID, fields: fields}
}

// givenRange is a field's valid values with what the peer gave, where a
// value is relative to it: the remote address as base + offset, the rkey
// as the given key or another.
func givenRange(f steps.EditField, remote *steps.RemoteState) string {
	if remote == nil {
		return f.Range()
	}
	switch f.Kind {
	case steps.EditAddr:
		return fmt.Sprintf("0x%x + offset %d..%d", remote.Info.Addr, f.Min, f.Max)
	case steps.EditKey:
		return fmt.Sprintf("rkey (0x%x, given), lkey, +N, -N, 0xKEY", remote.Info.RKey)
	}
	return f.Range()
}

// formField is one catalogue field as the form shows it.
func formField(f steps.EditField, lang text.Lang) editform.Field {
	out := editform.Field{Name: f.Name, CName: f.CName, Range: f.Range(), Meaning: f.Explain,
		Current: f.Current, Default: f.Default, Kind: editform.Input}
	switch f.Kind {
	case steps.EditFlags, steps.EditEnum:
		out.Kind = editform.Choice
		if f.Kind == steps.EditFlags {
			out.Kind = editform.Flags
		}
		for _, ch := range f.Choices {
			out.Options = append(out.Options, ch.CName)
		}
	case steps.EditText:
		out.MaxLen = int(f.Max)
	}
	if b := f.Bound.In(lang); b != "" {
		out.Meaning = text.Text{EN: f.Explain.EN + " " + f.Bound.EN, ZH: f.Explain.ZH + f.Bound.ZH}
	}
	out.Check = func(v string) error {
		_, err := steps.ParseEditFor(f, v)
		var ee *steps.EditError
		if errors.As(err, &ee) {
			return errors.New(ee.Reason.In(lang))
		}
		return err
	}
	return out
}

// formKey gives the open form a key; Enter sets what changed, Esc
// closes it with nothing changed.
func (m *model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	res, cmd := m.scr.edit.form.Update(msg)
	switch res {
	case editform.Cancelled:
		m.scr.edit.form = nil
	case editform.Applied:
		m.scr.edit.notice = m.applyEdits(m.scr.edit.form.Changes())
		m.scr.edit.form = nil
		m.refresh()
		m.paneAt(slot{pane.Explain, 0}).Follow()
		m.paneAt(slot{pane.Call, 0}).Follow()
	}
	return cmd
}

// applyEdits sets each change on the session; the first refusal is the
// notice (the form checked the values, the session may still refuse one).
func (m *model) applyEdits(changes []editform.Change) text.Text {
	ed, ok := m.sessions[m.scr.edit.side].(editor)
	if !ok {
		return text.Text{}
	}
	for _, c := range changes {
		if c.Restore {
			ed.ClearEdit(m.scr.edit.step, c.Name)
			continue
		}
		e, err := steps.ParseEdit(string(m.scr.edit.step) + "." + c.Name + "=" + c.Value)
		if err == nil {
			err = ed.SetEdit(e)
		}
		if err != nil {
			var ee *steps.EditError
			if errors.As(err, &ee) {
				return text.Text{EN: ee.In(text.EN), ZH: ee.In(text.ZH)}
			}
			return text.Same(err.Error())
		}
	}
	return text.Text{}
}

// askAboutEdit is p: the question about the edited step, or why not.
func (m *model) askAboutEdit() {
	if !m.editsInput().CanAsk {
		if _, _, pending := pane.PendingPrediction(m.snaps, m.demo); !pending {
			m.scr.edit.notice = text.Text{EN: "p asks what an edit will do: press e first and change an argument of the next step.", ZH: "p 是在修改之后猜结果的：先按 e 改下一步的一个参数。"}
		}
		return
	}
	side, _, ed, why := m.editTarget()
	if ed == nil {
		m.scr.edit.notice = why
		return
	}
	if err := ed.AskAboutEdit(); err != nil {
		m.scr.edit.notice = text.Text{EN: "No question now: " + err.Error() + ".", ZH: "现在不能提问：" + err.Error() + "。"}
		if errors.Is(err, steps.ErrLessonAsks) {
			m.scr.edit.notice = text.Text{EN: "This lesson asks its own question; p works in the plain tour.", ZH: "这一课有自己的问题；p 在普通教程里可用。"}
		}
		return
	}
	m.scr.edit.notice = text.Text{}
	m.scr.side = side
	m.refresh()
	m.paneAt(slot{pane.Explain, 0}).Follow()
	if m.narrow() {
		m.scr.focus = tabExplain
	}
}

// nextEdits are the learner's edits of the step about to run, for the
// panes.
func (m *model) nextEdits() []pane.EditNote {
	side, idx, more := m.nextTurn()
	if !more || m.run.on || m.look.on {
		return nil
	}
	if side >= len(m.sessions) || side >= len(m.tours) || idx >= len(m.tours[side]) {
		return nil // a fixture without a session or tour
	}
	ed, ok := m.sessions[side].(editor)
	if !ok {
		return nil
	}
	id := m.tours[side][idx].ID
	mine := m.sessions[side].Config().Edits // the learner's: a lesson's preset is not among them
	var out []pane.EditNote
	for _, f := range ed.Editable(id) {
		if f.Edited {
			_, learner := mine.Find(m.sessions[side].Config().Role, id, f.Name)
			out = append(out, pane.EditNote{Name: f.Name, CName: f.CName, Value: f.Current, Was: f.Default, Meaning: f.Explain,
				Lesson: !learner, LessonName: m.sessions[side].Config().LessonName()})
		}
	}
	return out
}

// editsInput is the panes' view of the edits.
func (m *model) editsInput() pane.Edits {
	next := m.nextEdits()
	_, _, pending := pane.PendingPrediction(m.snaps, m.demo)
	learner := false
	for _, e := range next {
		learner = learner || !e.Lesson
	}
	return pane.Edits{Next: next, Notice: m.scr.edit.notice, CanAsk: learner && !pending}
}
