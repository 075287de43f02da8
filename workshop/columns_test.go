package workshop_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/text"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/workshop"
)

// TestRosterCells: one row under the roster's columns, in both languages.
func TestRosterCells(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	row := workshop.Row{N: 7, Addr: netip.MustParseAddrPort("10.0.0.7:40007"), Backend: "sim", QPN: 0x1a2b,
		QPState: "IBV_QPS_RTS", Phase: workshop.PhaseLanded, Observed: text.Same("connected"), Landed: true,
		Message: privdata.PeerBytes(strings.Repeat("x", 100)), Last: now.Add(-90 * time.Second)}
	cols := workshop.Columns()
	got := workshop.Cells(cols, row, now, text.EN)
	want := []string{"7", "10.0.0.7:40007", "sim", "0x1a2b", "RTS", "landed", "-", "1m", `"` + strings.Repeat("x", 39) + `…" · connected`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("cells\n%q\nwant\n%q", got, want)
	}
	row.Ran, row.Steps = 5, 10
	if got := workshop.Cells(cols, row, now, text.EN); got[6] != "██░░ 5/10" {
		t.Errorf("step cell %q", got[6])
	}
	if zh := workshop.Cells(cols, row, now, text.ZH); zh[5] != "数据已到" {
		t.Errorf("zh state %q", zh[5])
	}
	if h := workshop.Heads(cols, text.ZH); h[1] != "名字/地址" || len(h) != len(cols) {
		t.Errorf("zh heads %q", h)
	}
	fit := func(s string, w int, right bool) string {
		if len(s) > w {
			return s[:w]
		}
		if right {
			return strings.Repeat(" ", w-len(s)) + s
		}
		return s + strings.Repeat(" ", w-len(s))
	}
	line := workshop.Line(cols, got, " ", 10, fit)
	if !strings.HasPrefix(line, "   7 10.0.0.7:40007") || !strings.HasSuffix(line, `"xxxxxxxxx`) {
		t.Errorf("line %q", line)
	}
	row.Name = "Ada"
	if got := workshop.Cells(cols, row, now, text.EN); got[1] != "Ada" {
		t.Errorf("a named attendee's cell %q, want their name", got[1])
	}
}
