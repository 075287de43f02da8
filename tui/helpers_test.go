package tui

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// fakeDocs stands in for docs.Page: a page per step in the agreed shape.
func fakeDocs(lang, id string) (string, error) {
	if id == "missing" {
		return "", fmt.Errorf("docs: no %s page for %q", lang, id)
	}
	if lang == "zh" {
		return "# " + id + " 的讲解\n\n## 这个调用做什么\n\n这一步调用 `" + id + "`，把资源准备好。中文要按显示宽度对齐，不能按字节数计算。\n\n## 为什么这里需要它\n\n因为后面的步骤要用到它。\n\n## 屏幕上看什么\n\n- 看状态窗格\n- 看时序\n\n## 常见错误\n\n忘记检查返回值。\n", nil
	}
	return "# Explaining " + id + "\n\n## What the call does\n\nThis step calls `" + id + "` and prepares the resource the next steps need, with enough words to wrap across lines in a narrow pane.\n\n## Why it is needed here\n\nBecause later steps use it.\n\n## What to watch\n\n- the state pane\n- the timeline\n\n## Common mistakes\n\nForgetting to check the return value.\n", nil
}

func freePort(t testing.TB) uint16 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

type rig struct {
	srvNIC, cliNIC verbs.Provider
	srv, cli       *steps.Session
}

// newRig makes a server and a client session, each on its own simulated
// NIC, the client pointed at the server's port.
func newRig(t testing.TB, n steps.Notify) *rig {
	t.Helper()
	port := freePort(t)
	r := &rig{srvNIC: sim.New(sim.Options{}), cliNIC: sim.New(sim.Options{})}
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)
	var err error
	r.srv, err = steps.NewSession(steps.Config{Role: steps.Server, Notify: n, Provider: r.srvNIC, Bind: addr,
		Timeout: 10 * time.Second, BackendWhy: text.Same("no RDMA device found (test)")})
	if err != nil {
		t.Fatal(err)
	}
	r.cli, err = steps.NewSession(steps.Config{Role: steps.Client, Notify: n, Provider: r.cliNIC, Server: addr, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.srv.Close(); r.cli.Close() })
	return r
}

func newTestModel(t testing.TB, sessions []steps.Runner, lang text.Lang, w, h int, environ ...string) *model {
	t.Helper()
	m, err := newModel(context.Background(), Options{Sessions: sessions, Lang: lang, Docs: fakeDocs, Environ: environ, Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// press sends a key and runs the command it returns synchronously (a step
// runs to completion), feeding the result back like the program would.
func press(t testing.TB, m *model, k string) {
	t.Helper()
	_, cmd := m.Update(keyMsg(k))
	for cmd != nil {
		msg := cmd()
		if _, ok := msg.(tea.QuitMsg); ok {
			return
		}
		_, cmd = m.Update(msg)
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// checkFrame asserts the screen is exactly w×h cells.
func checkFrame(t *testing.T, name, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d", name, len(lines), h)
	}
	for i, l := range lines {
		if got := termtext.Width(l); got != w {
			t.Errorf("%s: line %d is %d cells wide, want %d: %q", name, i, got, w, ansi.Strip(l))
		}
		if got := ansi.StringWidth(l); got != w && !eastAsianEnv() {
			t.Errorf("%s: line %d: ansi.StringWidth %d, want %d", name, i, got, w)
		}
	}
}

// render is what the program shows after the next message: Update's
// sync (tests change the model's fields directly), then View.
func (m *model) render() string {
	m.sync()
	return m.View().Content
}

// The panes' renderers as the tests knew them when they were model
// methods: each draws from the Input the model would hand the panes now.

func (m *model) wireLines(side, w int) []string                 { return m.input().WireLines(side, w) }
func (m *model) timelineLines(w int) []string                   { return m.input().TimelineLines(w) }
func (m *model) timeline() []steps.TimelineEntry                { return m.input().Timeline() }
func (m *model) hexdump(b steps.BufferState, w int) []string    { return m.input().Hexdump(b, w) }
func (m *model) explainTitle() string                           { return m.input().Content(pane.Explain, 0, 100, 20).Title }
func (m *model) explainLines(w int) []string                    { return m.input().Content(pane.Explain, 0, w, 20).Lines }
func (m *model) stateLinesAnchored(side, w int) ([]string, int) { return m.input().StateLines(side, w) }

func (m *model) stateLines(side, w int) []string {
	lines, _ := m.input().StateLines(side, w)
	return lines
}

func (m *model) stepsLines(side, w int) ([]string, int) {
	c := m.input().Content(pane.Steps, side, w, 0)
	return c.Lines, c.Top
}

func (m *model) paneContent(p slot, w, h int) (string, []string, int) {
	c := m.input().Content(p.kind, p.side, w, h)
	return c.Title, c.Lines, c.Top
}
