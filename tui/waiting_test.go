package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// While the server waits for a client, the call pane names what the
// client's user must do (from the tour plan, in the UI's language), and a
// run key pressed meanwhile gets a note instead of nothing.
func TestWaitingHintAndKeyNote(t *testing.T) {
	for _, tt := range []struct {
		lang text.Lang
		hint []string
		note string
	}{
		{text.EN, []string{"on the client: press Enter until step 11, Send the connect request", "not started yet? On the client's terminal or host, run:", "rdmatour client 127.0.0.1 --port"}, "still waiting for the client (step 11 there): Enter does nothing until then; q quits"},
		{text.ZH, []string{"在 client 端：一直按回车，直到第 11 步", "「发出连接请求」", "还没启动？在 client 的终端或主机上运行：", "--backend sim --lang zh"}, "仍在等待 client（它的第 11 步）：在那之前按回车不起作用；q 退出"},
	} {
		t.Run(tt.lang.String(), func(t *testing.T) {
			r := newRig(t, steps.NotifySend)
			m := newTestModel(t, []steps.Runner{r.srv}, tt.lang, 100, 30)
			for range 4 {
				press(t, m, "enter") // up to listen
			}
			_, cmd := m.Update(keyMsg("enter")) // get-connect-request: waits for a client
			if cmd == nil || !m.run.on {
				t.Fatal("the waiting step did not start")
			}
			done := make(chan tea.Msg, 1)
			go func() { done <- cmd() }()
			c := m.input().Content(pane.Call, 0, 60, 30)
			screen := flat(m.render()) + flat(ansi.Strip(strings.Join(c.Lines, "\n")))
			for _, h := range tt.hint {
				if !strings.Contains(screen, h) {
					t.Errorf("no waiting hint %q on screen:\n%s", h, m.render())
				}
			}
			if strings.Contains(screen, tt.note) {
				t.Errorf("key note before any key")
			}
			if _, again := m.Update(keyMsg("enter")); again != nil {
				t.Fatal("a second step started while one runs")
			}
			if screen := flat(m.render()); !strings.Contains(screen, tt.note) {
				t.Errorf("no note %q for the key pressed while waiting:\n%s", tt.note, m.render())
			}
			m.quit()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the waiting step was not cancelled")
			}
			m.shutdown()
		})
	}
}

// flat is the screen's text with the panes' borders and line breaks
// removed, so that a wrapped sentence can be searched for.
func flat(screen string) string {
	var b strings.Builder
	for _, l := range strings.Split(ansi.Strip(screen), "\n") {
		l = strings.Trim(l, " │╭╮╰╯─")
		b.WriteString(l + " ")
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
