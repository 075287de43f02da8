package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// TestSimulatedChannelInChinese: the event channel of the simulated NIC
// has no fd; in zh the call pane says so in Chinese.
func TestSimulatedChannelInChinese(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.ZH, 140, 45)
	press(t, m, "enter")
	s := ansi.Strip(m.render())
	if !strings.Contains(s, "ec = 模拟的（没有 fd）") || strings.Contains(s, "= simulated") {
		t.Errorf("the simulated event channel is not in Chinese:\n%s", s)
	}
}

// TestEventStatusInChinese: the CM id's last event keeps its librdmacm

// TestErrorBannerShowsCodeAsThePanesDo: backticks around code in an
// explanation are not shown raw in the error banner (the explanation pane
// drops them too); without colour they stay, as they mark the code.
func TestErrorBannerShowsCodeAsThePanesDo(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	fail := &steps.Problem{What: text.Text{EN: "nothing is listening at 10.0.0.2:7471", ZH: "10.0.0.2:7471 上没有程序在监听"},
		Fix: text.Text{EN: "start `rdmatour server` there first", ZH: "先在那里启动 `rdmatour server`"}}
	for _, tt := range []struct {
		environ   []string
		want, not string
	}{
		{[]string{"TERM=xterm"}, "Start rdmatour server there first", "`"},
		{[]string{"NO_COLOR=1"}, "Start `rdmatour server` there first", "\x00"},
	} {
		m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 200, 40, tt.environ...)
		m.end.errs[1] = fail
		got := ansi.Strip(strings.Join(m.errorBanner(200), "\n"))
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%v: %q, want %q and no %q", tt.environ, got, tt.want, tt.not)
		}
	}
}

// TestHelpDescribesTheLayoutOnScreen: the help's sentence on the panes
// fits the layout: tabs at 80×24, columns where there are columns.
func TestHelpDescribesTheLayoutOnScreen(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	for _, tt := range []struct {
		w, h      int
		lang      text.Lang
		want, not string
	}{
		{80, 24, text.EN, "the tabs below", "left"},
		{80, 24, text.ZH, "标签页", "左边"},
		{140, 45, text.EN, "the server's column (left)", "tabs"},
	} {
		m := newTestModel(t, []steps.Runner{r.srv, r.cli}, tt.lang, tt.w, tt.h)
		got := strings.Join(strings.Fields(ansi.Strip(strings.Join(m.fullHelp(tt.w), " "))), " ")
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%d×%d %v: %q, want %q and no %q", tt.w, tt.h, tt.lang, got, tt.want, tt.not)
		}
	}
}

// TestTooSmallNoticeSaysItIsCut: at 10×3 the notice does not fit; its
// last row ends with "…".
func TestTooSmallNoticeSaysItIsCut(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 10, 3)
	lines := m.tooSmall()
	var text []string
	for _, l := range lines {
		if s := strings.TrimSpace(ansi.Strip(l)); s != "" {
			text = append(text, s)
		}
	}
	if len(lines) != 3 || len(text) == 0 || !strings.HasSuffix(text[len(text)-1], "…") {
		t.Errorf("10×3: %q, want 3 rows, the last ending in …", lines)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 10 {
			t.Errorf("row %q is %d cells wide", l, w)
		}
	}
}
