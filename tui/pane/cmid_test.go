package pane

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
)

// TestUnboundIDHasNoInvalidAddress: right after rdma_create_id the id has
// no address; the CM id section said "local invalid AddrPort" (Go's words
// for a zero netip.AddrPort), on every tour's second step.
func TestUnboundIDHasNoInvalidAddress(t *testing.T) {
	in := &Input{Styles: NewStyles(true)}
	for _, local := range []string{"invalid AddrPort", ""} {
		lines, _ := in.cmidLines(steps.Snapshot{CMID: &steps.CMIDState{Local: local, Peer: "invalid AddrPort"}}, 80)
		got := ansi.Strip(strings.Join(lines, "\n"))
		if strings.Contains(got, "invalid") || !strings.Contains(got, "local -") {
			t.Errorf("Local %q: %q, want \"local -\" and no \"invalid\"", local, got)
		}
	}
	lines, _ := in.cmidLines(steps.Snapshot{CMID: &steps.CMIDState{Local: "10.0.0.1:7471", Peer: "10.0.0.2:40000"}}, 80)
	if got := ansi.Strip(lines[0]); !strings.Contains(got, "local 10.0.0.1:7471 → 10.0.0.2:40000") {
		t.Errorf("a bound id: %q", got)
	}
}
