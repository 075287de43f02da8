package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// editList is the repeatable --edit flag: each value parsed at once, so
// a bad step, field or value is a usage error naming the valid ones.
type editList struct{ edits *steps.Edits }

func (l editList) String() string {
	if l.edits == nil {
		return ""
	}
	return strings.Join(l.edits.Strings(), " ")
}

func (l editList) Set(s string) error {
	e, err := steps.ParseEdit(s)
	if err != nil {
		var ee *steps.EditError
		if errors.As(err, &ee) {
			return errors.New(strings.TrimPrefix(ee.Error(), "--edit "+s+": "))
		}
		return err
	}
	*l.edits = append(*l.edits, e)
	return nil
}

// checkEdits refuses an edit of a step this command's sides do not run:
// the server has no post-write (the client's --edit), the demo runs both.
func (o *options) checkEdits() error {
	if len(o.edits) == 0 {
		return nil
	}
	sides := map[command][]steps.Role{cmdServer: {steps.Server}, cmdClient: {steps.Client}, cmdDemo: {steps.Server, steps.Client}}[o.cmd]
	err := steps.CheckEdits(o.config(steps.Server), o.edits, sides...)
	var ee *steps.EditError
	if errors.As(err, &ee) {
		return &usageError{msg: text.Text{EN: ee.In(text.EN), ZH: ee.In(text.ZH)}}
	}
	if err != nil {
		return configUsage(err)
	}
	return nil
}

// listEdits is `rdmatour edits [STEP]`: a step's editable fields with
// their C names, ranges or choices and meaning; without a step, the
// steps that have any.
func listEdits(out io.Writer, step string, lang text.Lang) error {
	one := lang.Primary()
	if step == "" {
		fmt.Fprintln(out, text.Text{EN: "Steps whose call you can change before it runs (rdmatour edits STEP lists the fields):", ZH: "可以在运行前修改参数的步骤（rdmatour edits STEP 列出字段）："}.In(one))
		for _, s := range steps.EditableSteps() {
			fmt.Fprintf(out, "  %s\n", s)
		}
		fmt.Fprintln(out, "\n  e.g. rdmatour demo --edit post-write.rkey=+1")
		return nil
	}
	fields := steps.EditFieldsOf(steps.StepID(step))
	if len(fields) == 0 {
		return usageText(text.Text{EN: fmt.Sprintf("step %q has nothing to edit; these do: %s", step, strings.Join(steps.EditableSteps(), ", ")),
			ZH: fmt.Sprintf("步骤 %q 没有可改的参数；可以改的有：%s", step, strings.Join(steps.EditableSteps(), ", "))})
	}
	fmt.Fprintf(out, "%s\n", text.Text{EN: "Fields of " + step + " (--edit " + step + ".FIELD=VALUE):", ZH: step + " 的字段（--edit " + step + ".FIELD=VALUE）："}.In(one))
	for _, f := range fields {
		fmt.Fprintf(out, "\n  %-20s C: %s  (%s)\n", f.Name, f.CName, f.Kind)
		fmt.Fprintf(out, "  %-20s %s\n", "", f.Range())
		fmt.Fprintf(out, "  %-20s %s\n", "", f.Explain.In(one))
		if lang == text.Both {
			fmt.Fprintf(out, "  %-20s %s\n", "", f.Explain.ZH)
		}
		if f.Bound.EN != "" {
			fmt.Fprintf(out, "  %-20s %s\n", "", text.Text{EN: "refused: " + f.Bound.EN, ZH: "会被拒绝：" + f.Bound.ZH}.In(one))
		}
	}
	return nil
}
