package steps

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// plainQP is a QP whose NIC cannot impair its wire (real verbs).
type plainQP struct{ verbs.QP }

// A run that loses packets on purpose on a QP that cannot do it fails
// its create-qp step with what happened and what to do; without faults
// nothing is asked of the QP; a lesson's faults join --wire's.
func TestImpairWireNeedsAnImpairer(t *testing.T) {
	lw := lessonLostWrite()
	s := &Session{cfg: Config{Role: Client, Wire: verbs.WireFaults{Drop: []int{5}}, Lesson: &lw}}
	if got := s.wireFaults(); !slices.Equal(got.Drop, []int{2, 5}) {
		t.Errorf("faults %v, want the lesson's drop=2 and --wire's drop=5", got)
	}
	var out Outcome
	err := s.impairWire(plainQP{}, &out)
	var p *Problem
	if !errors.As(err, &p) || !strings.Contains(p.What.EN, "only the simulated NIC") || !strings.Contains(p.Fix.EN, "--backend sim") || p.Fix.ZH == "" {
		t.Errorf("err %v, want a Problem saying to use --backend sim", err)
	}
	server := &Session{cfg: Config{Role: Server, Lesson: &lw}}
	if err := server.impairWire(plainQP{}, &out); err != nil {
		t.Errorf("the server of lost-write loses nothing, yet: %v", err)
	}
}
