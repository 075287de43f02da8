package pane

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
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
