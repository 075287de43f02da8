package pane

import (
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// TestQPPathOnlyWhenTheDiagramCannotSayIt: a QP brought back from ERR
// shows its states in order; one that went RESET to RTS (and ERR) once
// leaves it to the diagram.
func TestQPPathOnlyWhenTheDiagramCannotSayIt(t *testing.T) {
	r, i, rtr, rts, e := verbs.QPSReset, verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS, verbs.QPSErr
	for _, c := range []struct {
		hist []verbs.QPState
		want string
	}{
		{nil, ""},
		{[]verbs.QPState{r, i, rtr, rts}, ""},
		{[]verbs.QPState{r, i, rtr, rts, e}, ""},
		{[]verbs.QPState{r, i, rtr, rts, e, r, i, rtr, rts}, "RESET → INIT → RTR → RTS → ERR → RESET → INIT → RTR → RTS"},
	} {
		if got := qpPath(c.hist); got != c.want {
			t.Errorf("%v: %q, want %q", c.hist, got, c.want)
		}
	}
}
