package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// TestChineseLabelsOnScreen: in zh mode the screen's own words are
// Chinese, the result names included; in both mode a title that is the
// same in both languages shows once.
func TestChineseLabelsOnScreen(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv}, text.ZH, 160, 50, "NO_COLOR=1")
	for range 4 { // up to listen
		press(t, m, "enter")
	}
	sc := ansi.Strip(m.render())
	for _, want := range []string{"监听地址 = ", "模拟网卡（sim0）"} {
		if !strings.Contains(sc, want) {
			t.Errorf("zh: no %q on screen:\n%s", want, sc)
		}
	}
	for _, bad := range []string{"listening on =", "SIMULATED NIC"} {
		if strings.Contains(sc, bad) {
			t.Errorf("zh: English %q on screen:\n%s", bad, sc)
		}
	}
	press(t, m, "l") // both
	if sc := ansi.Strip(m.render()); strings.Contains(sc, "CM id CM id") || strings.Contains(sc, "PD 保护域 PD") {
		t.Errorf("both: a title twice:\n%s", sc)
	}
}
