package pane

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// name, and its status reads as Chinese text does.
func TestEventStatusInChinese(t *testing.T) {
	for _, tt := range []struct {
		lang      text.Lang
		want, not string
	}{
		{text.ZH, "RDMA_CM_EVENT_REJECTED（status 8）", " (status"},
		{text.EN, "RDMA_CM_EVENT_REJECTED (status 8)", "（"},
	} {
		in := &Input{Styles: NewStyles(true), Lang: tt.lang}
		lines, _ := in.cmidLines(steps.Snapshot{CMID: &steps.CMIDState{Local: "10.0.0.1:7471", LastEvent: "RDMA_CM_EVENT_REJECTED", EventStatus: 8}}, 80)
		got := ansi.Strip(strings.Join(lines, "\n"))
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%v: %q, want %q and no %q", tt.lang, got, tt.want, tt.not)
		}
	}
}

// TestReleasedObjectsSayReleased: after this side's teardown the live
// state says its objects were released, not that they were never made
// (the ux review's "no device yet" / "not created yet" after teardown).
func TestReleasedObjectsSayReleased(t *testing.T) {
	for _, tt := range []struct {
		name     string
		released bool
		want     []string
		not      []string
	}{
		{"before the tour", false, []string{"no device yet", "not created yet: CM id"}, []string{"released"}},
		{"after teardown", true, []string{"released: the CM id", "released: CM id", "released  completions 1"}, []string{"yet"}},
	} {
		snap := steps.Snapshot{Released: tt.released}
		if tt.released {
			snap.CQ = &steps.CQState{Completions: make([]verbs.WC, 1)}
		}
		in := &Input{Styles: NewStyles(true), Lang: text.EN, Snaps: []steps.Snapshot{snap}}
		lines, _ := in.StateLines(0, 80)
		got := ansi.Strip(strings.Join(lines, "\n"))
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %q in\n%s", tt.name, w, got)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q in\n%s", tt.name, n, got)
			}
		}
	}
}
