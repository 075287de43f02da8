package steps

import (
	"fmt"
	"testing"
	"time"
)

// overlay keeps the runs sorted and disjoint, the new run winning over
// what it covers, and never changes the list it was given.
func TestOverlayChangeRuns(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	cases := []struct {
		name      string
		runs      []ChangeRun
		off, n, s int
		want      string
	}{
		{"first", nil, 0, 42, 1, "[0,42)@1"},
		{"after", []ChangeRun{{0, 42, at(1)}}, 100, 8, 2, "[0,42)@1 [100,108)@2"},
		{"before", []ChangeRun{{100, 8, at(1)}}, 0, 8, 2, "[0,8)@2 [100,108)@1"},
		{"inside splits", []ChangeRun{{0, 42, at(1)}}, 10, 5, 2, "[0,10)@1 [10,15)@2 [15,42)@1"},
		{"covers two", []ChangeRun{{0, 4, at(1)}, {8, 4, at(1)}}, 2, 8, 3, "[0,2)@1 [2,10)@3 [10,12)@1"},
		{"the same bytes again", []ChangeRun{{0, 42, at(1)}}, 0, 42, 2, "[0,42)@2"},
	}
	for _, c := range cases {
		before := fmt.Sprint(c.runs)
		got := overlay(c.runs, c.off, c.n, at(c.s))
		var s string
		for i, r := range got {
			if i > 0 {
				s += " "
			}
			s += fmt.Sprintf("[%d,%d)@%d", r.Off, r.Off+r.N, int(r.At.Sub(t0)/time.Second))
		}
		if s != c.want {
			t.Errorf("%s: %s, want %s", c.name, s, c.want)
		}
		if fmt.Sprint(c.runs) != before {
			t.Errorf("%s: the list given was changed", c.name)
		}
		b := BufferState{Changes: got}
		if !b.ChangedAt(c.off).Equal(at(c.s)) || !b.ChangedAt(c.off+c.n).Equal(BufferState{Changes: c.runs}.ChangedAt(c.off+c.n)) {
			t.Errorf("%s: ChangedAt at the run's edges", c.name)
		}
	}
}
