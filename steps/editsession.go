package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// editState is the learner's edits of this side, guarded by Session.mu:
// Config.Edits that apply here, then whatever SetEdit added.
type editState struct {
	edits Edits
	// writeOp is the completion the posted WRITE (maybe edited into
	// another opcode) will make: what poll-write waits for.
	writeOp verbs.WCOpcode
	// writeOpEdited: the learner changed the WRITE's opcode.
	writeOpEdited bool
	// previews are the edited steps' C as shown before they run
	// (editpreview.go); "" for a step shown in the tour's form.
	previews map[StepID]string
	// lateEdits are the learner's edits made after this side's hello
	// left, for the SEND to carry (lateedits.go).
	lateEdits Edits
}

// Edits are the edits in force on this side.
func (s *Session) Edits() Edits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(Edits(nil), s.edits...)
}

// learnerEdits are Edits less the lesson's preset.
func (s *Session) learnerEdits() Edits {
	var preset map[string]bool
	if s.cfg.Lesson != nil {
		preset = map[string]bool{}
		for _, e := range s.cfg.Lesson.Preset() {
			preset[e.String()] = true
		}
	}
	var out Edits
	for _, e := range s.Edits() {
		if !preset[e.String()] {
			out = append(out, e)
		}
	}
	return out
}

// Editable is step's editable fields on this side with their current
// values (nil when this side's tour does not have step or it has nothing
// to edit). The form shows Current, and Default for "was".
func (s *Session) Editable(step StepID) []EditField {
	if indexOf(s.tour, step) < 0 {
		return nil
	}
	fields := EditFieldsOf(step)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range fields {
		f := &fields[i]
		f.Default = f.fallback(s)
		f.Current = f.Default
		if e, ok := s.edits.Find(s.cfg.Role, step, f.Name); ok {
			f.Current, f.Edited = e.Value.Raw, true
		}
	}
	return fields
}

// SetEdit makes e part of this side's run. The step must be on this
// side's tour and not have run yet; a later SetEdit of the same field
// replaces it. Every error is an *EditError.
func (s *Session) SetEdit(e Edit) error {
	if err := s.editApplies(e); err != nil {
		return err
	}
	defer s.refreshPreviewIfIdle()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := indexOf(s.tour, e.Step); i < s.next {
		return &EditError{Input: e.String(), Reason: text.Text{EN: fmt.Sprintf("step %s has already run; an edit changes a step before it runs", e.Step), ZH: fmt.Sprintf("步骤 %s 已经运行过了；修改只能在步骤运行之前做", e.Step)}}
	}
	s.edits = append(s.edits.without(e.Step, e.Field), e)
	s.noteLateEdit(e)
	return nil
}

// ClearEdit puts step.field back to the tour's value (Esc in the form,
// "restore" in Try next). It does nothing to a step that already ran.
func (s *Session) ClearEdit(step StepID, field string) {
	defer s.refreshPreviewIfIdle()
	s.mu.Lock()
	defer s.mu.Unlock()
	if indexOf(s.tour, step) >= s.next {
		s.edits = s.edits.without(step, field)
	}
}

// editApplies checks e is for this side and a step its tour has.
func (s *Session) editApplies(e Edit) error {
	if !e.AnySide && e.Side != s.cfg.Role {
		return &EditError{Input: e.String(), Reason: text.Text{EN: fmt.Sprintf("this edit is for the %s; this is the %s", e.Side, s.cfg.Role), ZH: fmt.Sprintf("这个修改是给 %s 的；这里是 %s", e.Side, s.cfg.Role)}}
	}
	if indexOf(s.tour, e.Step) < 0 {
		return noSuchStepError(e, s.cfg.Role)
	}
	if e.Field == "run" {
		return &EditError{Input: e.String(), Reason: text.Text{EN: "which steps run is decided when the tour starts: give it as --edit", ZH: "哪些步骤运行在教程开始时就定了：请用 --edit 给出"}}
	}
	return s.cfg.memlockRefusal(e)
}

// memlockRefusal refuses a data MR longer than this process may pin
// (Config.MemlockLimit): ibv_reg_mr charges the pinned pages against
// RLIMIT_MEMLOCK (ib_umem_get) and fails with ENOMEM past it, unless the
// process may lock any amount (CAP_IPC_LOCK), which is no reason to pin
// it either.
func (c Config) memlockRefusal(e Edit) error {
	if c.MemlockLimit == 0 || e.Step != IDRegMRData || e.Field != "length" || uint64(e.Value.Num) <= c.MemlockLimit {
		return nil
	}
	return &EditError{Input: e.String(), Reason: text.Text{
		EN: fmt.Sprintf("%d bytes is more than this process may pin (RLIMIT_MEMLOCK, %d bytes): ibv_reg_mr would fail with ENOMEM. Register less, or raise the limit (ulimit -l)", e.Value.Num, c.MemlockLimit),
		ZH: fmt.Sprintf("%d 字节超过了这个进程能锁住的内存（RLIMIT_MEMLOCK，%d 字节）：ibv_reg_mr 会以 ENOMEM 失败。请注册少一些，或提高上限（ulimit -l）", e.Value.Num, c.MemlockLimit)},
		Valid: []string{fmt.Sprintf("1..%d", min(c.MemlockLimit, MaxEditMRLen))}}
}

// skipSteps drops the steps an edit STEP.run=skip leaves out on cfg's
// side (a lesson may have dropped one already: no-recv's preset says
// what its tour edit does).
func skipSteps(cfg Config, tour []Step) []Step {
	edits := cfg.Edits
	if cfg.Lesson != nil {
		preset, _ := cfg.Lesson.presetEdits() // NewSession reported an error
		edits = append(preset, edits...)
	}
	out := tour
	for _, st := range tour {
		if e, ok := edits.Find(cfg.Role, st.ID, "run"); ok && e.Value.Num == runSkip {
			out = append([]Step(nil), out...)
			out = append(out[:indexOf(out, st.ID)], out[indexOf(out, st.ID)+1:]...)
		}
	}
	return moveSteps(edits, cfg.Role, out)
}

func noSuchStepError(e Edit, role Role) error {
	return &EditError{Input: e.String(), Reason: text.Text{EN: fmt.Sprintf("the %s's tour has no step %s (if it is the %s's, give the --edit to rdmatour %s)", role, e.Step, role.Peer(), role.Peer()),
		ZH: fmt.Sprintf("%s 的教程里没有步骤 %s（如果它是 %s 的步骤，请把 --edit 交给 rdmatour %s）", role, e.Step, role.Peer(), role.Peer())}}
}

// without is es less every edit of step.field.
func (es Edits) without(step StepID, field string) Edits {
	var out Edits
	for _, e := range es {
		if e.Step != step || e.Field != field {
			out = append(out, e)
		}
	}
	return out
}

// forSide keeps the edits that apply to role on tour: a demo gives
// both sides the same list, and each takes its own.
func (es Edits) forSide(role Role, tour []Step) Edits {
	var out Edits
	for _, e := range es {
		// A skip stays although its step is gone: it is why.
		if (e.AnySide || e.Side == role) && (indexOf(tour, e.Step) >= 0 || e.Field == "run") {
			out = append(out, e)
		}
	}
	return out
}

// CheckEdits says whether each edit names a step one of the sides runs
// with cfg (its tour, notify mode, track and lesson): `rdmatour server
// --edit post-write.rkey=+1` is refused before anything starts, since
// the WRITE is the client's.
func CheckEdits(cfg Config, es Edits, sides ...Role) error {
	tours := map[Role][]Step{}
	for _, r := range sides {
		c := cfg
		c.Role, c.Edits = r, nil // the tour before any skip
		if l := c.Lesson; l != nil {
			c.Notify, c.Tour, c.Track = l.Notify, l.Tour, l.Track
		}
		tour, err := tourFor(c)
		if err != nil {
			return err
		}
		tours[r] = tour
	}
	for _, e := range es {
		found := false
		for _, r := range sides {
			if (e.AnySide || e.Side == r) && indexOf(tours[r], e.Step) >= 0 {
				found = true
			}
		}
		if !found && len(sides) > 0 {
			return noSuchStepError(e, sides[0])
		}
		if err := cfg.memlockRefusal(e); err != nil {
			return err
		}
	}
	for _, r := range sides {
		if err := moveTargetMissing(es, r, tours[r]); err != nil {
			return err
		}
	}
	return nil
}
