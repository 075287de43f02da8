package steps

import (
	"regexp"
	"strings"
	"testing"

	c "github.com/rdmatour/rdmatour/steps/cprint"
)

// TestGenericIsWhatRuns: every line a step shows before it runs is a
// statement the step then ran, as the same printer renders it without
// values, on every tour, lesson and track. (The pre-run form may leave
// statements out: the allocation before a registration, the fill before
// a send.)
func TestGenericIsWhatRuns(t *testing.T) {
	comment := regexp.MustCompile(` /\*.*\*/$`)
	bare := func(text string) map[string]bool {
		lines := map[string]bool{}
		for _, l := range strings.Split(text, "\n") {
			lines[comment.ReplaceAllString(l, "")] = true
		}
		return lines
	}
	forEachStepRun(t, func(from string, st Step, out *Outcome) {
		if out == nil {
			t.Errorf("%s did not run", from)
			return
		}
		ran := c.Lines(out.C, c.Generic)
		for line := range bare(st.Call) {
			if !bare(ran)[line] {
				t.Errorf("%s shows %q before it runs; it ran:\n%s", from, line, ran)
			}
		}
	})
}
