package steps

import (
	"context"
	"regexp"
	"strings"
	"testing"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs/sim"
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
	for _, tc := range exportCases() {
		sides, err := runForExport(context.Background(), tc.o, sim.New(sim.Options{}), sim.New(sim.Options{}))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, s := range sides {
			for i, st := range s.tour {
				ran := bare(c.Lines(s.outcomes[i].C, c.Generic))
				for line := range bare(st.Call) {
					if !ran[line] {
						t.Errorf("%s %s/%s shows %q before it runs; it ran:\n%s", tc.name, s.cfg.Role, st.ID, line, c.Lines(s.outcomes[i].C, c.Generic))
					}
				}
			}
		}
	}
}
