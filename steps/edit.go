package steps

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rdmatour/rdmatour/text"
)

// Edits are the learner's own experiment: a call's argument changed
// before the step runs (`--edit STEP.FIELD=VALUE`, the TUI's `e` form, a
// lesson's preset). The catalogue of what can be edited is
// EditFields (editfields.go): one EditField per argument, with its C
// name, its kind, its range or choices and what it means. A front end
//
//   - lists a step's fields with their current values: (*Session).Editable,
//   - parses what the learner typed: ParseEdit (or ParseEditFor one field),
//   - sets it before the step runs: (*Session).SetEdit, or Config.Edits
//     before the session is made; (*Session).ClearEdit undoes one.
//
// The step then makes its real call with the edited value on either
// backend, and its C shows the argument as `value /* you: was … */`
// (cprint.Edited). Nothing else about a step changes: an edit that makes
// a later step fail ends the tour with that step's real error.

// EditKind is how a field's value is written and checked.
type EditKind int

const (
	// EditFlags is a set of C flags joined with |, or +FLAG / -FLAG to
	// add to or take from the tour's value ("0" for none).
	EditFlags EditKind = iota
	// EditEnum is one of Choices, by its C name.
	EditEnum
	// EditInt is a number in Min..Max (decimal or 0x hex).
	EditInt
	// EditAddr is an offset from the address the call would use (the
	// peer's buffer as remote_info gave it): +N or -N or N, in Min..Max.
	EditAddr
	// EditKey is a memory key: "rkey" (the one the peer gave), "lkey"
	// (this side's own), +N / -N from the given key, or 0x… itself.
	EditKey
	// EditText is a string of at most Max bytes (the message).
	EditText
)

var editKindNames = []string{EditFlags: "flags", EditEnum: "enum", EditInt: "int", EditAddr: "addr", EditKey: "key", EditText: "text"}

func (k EditKind) String() string {
	if k < 0 || int(k) >= len(editKindNames) {
		return fmt.Sprintf("EditKind(%d)", int(k))
	}
	return editKindNames[k]
}

// EditChoice is one value of an enum or one flag of a flags field.
type EditChoice struct {
	// CName is the value as C writes it (IBV_ACCESS_REMOTE_WRITE).
	CName string
	Value uint64
}

// EditField is one argument of one step a learner may change.
type EditField struct {
	Step StepID
	// Name is what --edit calls it (access, rkey, max_send_wr).
	Name string
	// CName is the argument in the C call (the 4th argument of
	// ibv_reg_mr "access", wr.rdma.rkey, qp_init_attr.cap.max_send_wr).
	CName string
	Kind  EditKind
	// Choices are the flags (EditFlags) or values (EditEnum).
	Choices []EditChoice
	// Min and Max bound an int, an address offset, or a text's length.
	Min, Max int64
	// Explain says what the field means, in general terms (not what the
	// edit will do: the run shows that).
	Explain text.Text
	// Bound says why Max is where it is when it is below what C allows
	// (a value that would harm the machine or make a wait with no end).
	Bound text.Text

	// Current is the value the step will use in this session, and
	// Default the tour's own; both in the field's syntax. Filled by
	// (*Session).Editable; empty in the bare catalogue.
	Current, Default string
	// Edited says Current is the learner's.
	Edited bool
	// fallback is the tour's value on a session (Default's source).
	fallback func(*Session) string
}

// Key is STEP.FIELD, what --edit and the C comment name it by.
func (f EditField) Key() string { return string(f.Step) + "." + f.Name }

// Range is the field's valid values in words: "0..7",
// "IBV_WR_RDMA_WRITE, IBV_WR_SEND", for `rdmatour edits` and the form.
func (f EditField) Range() string {
	switch f.Kind {
	case EditFlags, EditEnum:
		names := make([]string, len(f.Choices))
		for i, ch := range f.Choices {
			names[i] = ch.CName
		}
		sep := ", "
		if f.Kind == EditFlags {
			sep = " | "
		}
		return strings.Join(names, sep)
	case EditKey:
		return "rkey, lkey, +N, -N, 0xKEY"
	case EditText:
		return fmt.Sprintf("up to %d bytes", f.Max)
	case EditAddr:
		return fmt.Sprintf("offset %d..%d", f.Min, f.Max)
	}
	return fmt.Sprintf("%d..%d", f.Min, f.Max)
}

// Edit is one change: the field STEP.FIELD gets Value.
type Edit struct {
	Step  StepID
	Field string
	Value EditValue
	// Side limits the edit to one side ("server:" or "client:" before
	// STEP); AnySide applies it wherever the tour has the step.
	Side    Role
	AnySide bool
	// Lesson names the lesson whose preset this edit is ("" for the
	// learner's own): the C says `/* lesson bad-rkey: was … */`.
	Lesson string
}

// editor is who the C names as having made e: "lesson NAME", or "" for
// the learner ("you").
func (e Edit) editor() string {
	if e.Lesson == "" {
		return ""
	}
	return "lesson " + e.Lesson
}

// Key is STEP.FIELD.
func (e Edit) Key() string { return string(e.Step) + "." + e.Field }

// String is the edit as --edit takes it back.
func (e Edit) String() string {
	prefix := ""
	if !e.AnySide {
		prefix = e.Side.String() + ":"
	}
	return prefix + e.Key() + "=" + e.Value.Raw
}

// EditValue is a parsed value. Which fields mean something depends on
// the field's kind.
type EditValue struct {
	// Raw is what the learner wrote, shown in the record and the form.
	Raw string
	// Num is the number (EditInt, EditEnum, an absolute EditKey), the
	// flags (EditFlags, after Add/Del against the default), or the
	// offset (EditAddr) or delta (a relative EditKey).
	Num int64
	// Add and Del are the flags +FLAG and -FLAG put on or take off the
	// tour's value; Abs says Num is the whole set.
	Add, Del uint64
	Abs      bool
	// Ref is "rkey" or "lkey" for a named key ("" for a number); Rel
	// says Num is added to the given key.
	Ref string
	Rel bool
	// Text is an EditText's string.
	Text string
}

// Edits are a side's (or a demo's) edits, in the order given; a later
// edit of the same field replaces an earlier one.
type Edits []Edit

// Find is the edit of step.field that applies to role, if any.
func (es Edits) Find(role Role, step StepID, field string) (Edit, bool) {
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		if e.Step == step && e.Field == field && (e.AnySide || e.Side == role) {
			return e, true
		}
	}
	return Edit{}, false
}

// Strings are the edits as --edit flags.
func (es Edits) Strings() []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

// EditError is an edit that cannot be made: a bad step, field or value,
// or a value refused because it would harm the machine or never end.
// Valid lists what would be accepted.
type EditError struct {
	Input  string
	Reason text.Text
	Valid  []string
}

func (e *EditError) Error() string { return e.In(text.EN) }

// In is the error in lang, with the valid values.
func (e *EditError) In(lang text.Lang) string {
	msg := fmt.Sprintf("--edit %s: %s", e.Input, e.Reason.In(lang))
	if len(e.Valid) > 0 {
		label := map[text.Lang]string{text.ZH: "可用的"}[lang]
		if label == "" {
			label = "valid"
		}
		msg += fmt.Sprintf(" (%s: %s)", label, strings.Join(e.Valid, ", "))
	}
	return msg
}

// ParseEdit reads "[server:|client:]STEP.FIELD=VALUE" against the
// catalogue: the step and field must be editable and the value valid for
// the field. Every error is an *EditError listing what is valid.
func ParseEdit(s string) (Edit, error) {
	lhs, raw, ok := strings.Cut(s, "=")
	if !ok {
		return Edit{}, &EditError{Input: s, Reason: text.Text{EN: "write it as STEP.FIELD=VALUE, e.g. post-write.rkey=+1", ZH: "格式是 STEP.FIELD=VALUE，例如 post-write.rkey=+1"}}
	}
	e := Edit{AnySide: true}
	if side, rest, ok := strings.Cut(lhs, ":"); ok {
		r, err := ParseRole(side)
		if err != nil {
			return Edit{}, &EditError{Input: s, Reason: text.Text{EN: fmt.Sprintf("%q is not a side", side), ZH: fmt.Sprintf("%q 不是一端", side)}, Valid: []string{"server:", "client:"}}
		}
		e.Side, e.AnySide, lhs = r, false, rest
	}
	dot := strings.LastIndexByte(lhs, '.')
	if dot < 0 {
		return Edit{}, &EditError{Input: s, Reason: text.Text{EN: "no field: write STEP.FIELD=VALUE", ZH: "缺少字段：格式是 STEP.FIELD=VALUE"}, Valid: EditableSteps()}
	}
	e.Step, e.Field = StepID(lhs[:dot]), lhs[dot+1:]
	f, err := lookupEditField(s, e.Step, e.Field)
	if err != nil {
		return Edit{}, err
	}
	v, err := f.parse(raw)
	if err != nil {
		return Edit{}, &EditError{Input: s, Reason: err.(*valueError).reason, Valid: []string{f.Range()}}
	}
	e.Value = v
	return e, nil
}

// ParseEdits parses each of ss (the repeated --edit flags).
func ParseEdits(ss []string) (Edits, error) {
	var out Edits
	for _, s := range ss {
		e, err := ParseEdit(s)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// ParseEditFor parses raw as the value of f (the TUI form's one field).
func ParseEditFor(f EditField, raw string) (Edit, error) {
	return ParseEdit(f.Key() + "=" + raw)
}

// lookupEditField finds step.field in the catalogue; input is the whole
// edit, for the error.
func lookupEditField(input string, step StepID, field string) (EditField, error) {
	fields := EditFieldsOf(step)
	if len(fields) == 0 {
		return EditField{}, &EditError{Input: input, Reason: text.Text{EN: fmt.Sprintf("step %q has nothing to edit", step), ZH: fmt.Sprintf("步骤 %q 没有可改的参数", step)}, Valid: EditableSteps()}
	}
	var names []string
	for _, f := range fields {
		if f.Name == field {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return EditField{}, &EditError{Input: input, Reason: text.Text{EN: fmt.Sprintf("step %s has no field %q", step, field), ZH: fmt.Sprintf("步骤 %s 没有字段 %q", step, field)}, Valid: names}
}

// EditableSteps are the steps with at least one editable field, sorted.
func EditableSteps() []string {
	seen := map[StepID]bool{}
	var out []string
	for _, f := range EditFields() {
		if !seen[f.Step] {
			seen[f.Step] = true
			out = append(out, string(f.Step))
		}
	}
	sort.Strings(out)
	return out
}

// EditFieldsOf is the catalogue's fields of step, in catalogue order.
func EditFieldsOf(step StepID) []EditField {
	var out []EditField
	for _, f := range EditFields() {
		if f.Step == step {
			out = append(out, f)
		}
	}
	return out
}

// parseNum reads a decimal or 0x number, optionally signed.
func parseNum(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(s, 0, 64)
		if uerr != nil || u > 1<<63-1 {
			return 0, false
		}
		n = int64(u)
	}
	return n, true
}
