package editform

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

func fields() []Field {
	return []Field{
		{Name: "access", CName: "access", Kind: Flags, Options: []string{"IBV_ACCESS_LOCAL_WRITE", "IBV_ACCESS_REMOTE_WRITE", "IBV_ACCESS_REMOTE_READ"},
			Current: "IBV_ACCESS_LOCAL_WRITE|IBV_ACCESS_REMOTE_WRITE", Default: "IBV_ACCESS_LOCAL_WRITE|IBV_ACCESS_REMOTE_WRITE",
			Meaning: text.Text{EN: "What the NIC may do with the memory.", ZH: "网卡可以对这块内存做什么。"}},
		{Name: "opcode", CName: "wr.opcode", Kind: Choice, Options: []string{"IBV_WR_RDMA_WRITE", "IBV_WR_SEND"}, Current: "IBV_WR_RDMA_WRITE", Default: "IBV_WR_RDMA_WRITE"},
		{Name: "length", CName: "sge.length", Kind: Input, Range: "1..4096", Current: "12", Default: "12",
			Check: func(s string) error {
				if s == "0" || strings.HasPrefix(s, "-") {
					return errors.New("out of range 1..4096")
				}
				return nil
			}},
	}
}

func press(m *Model, keys ...string) Result {
	r := Open
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "left":
			msg = tea.KeyPressMsg{Code: tea.KeyLeft}
		case "right":
			msg = tea.KeyPressMsg{Code: tea.KeyRight}
		case "space":
			msg = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
		case "backspace":
			msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
		default:
			msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
		}
		r, _ = m.Update(msg)
	}
	return r
}

func TestFormKeys(t *testing.T) {
	cases := []struct {
		name   string
		keys   []string
		result Result
		want   []Change
	}{
		{"esc leaves everything", []string{"down", "space", "esc"}, Cancelled, nil},
		{"enter with nothing changed", []string{"enter"}, Applied, nil},
		{"toggle remote write off", []string{"down", "space", "enter"}, Applied,
			[]Change{{Name: "access", Value: "IBV_ACCESS_LOCAL_WRITE"}}},
		{"toggle twice is no change", []string{"x", "x", "enter"}, Applied, nil},
		{"all flags off is 0", []string{"space", "down", "space", "enter"}, Applied, []Change{{Name: "access", Value: "0"}}},
		{"choice cycles with arrows", []string{"down", "down", "down", "right", "enter"}, Applied,
			[]Change{{Name: "opcode", Value: "IBV_WR_SEND"}}},
		{"choice back to the default is a restore", []string{"down", "down", "down", "right", "left", "enter"}, Applied, nil},
		{"typed number", []string{"up", "backspace", "backspace", "6", "4", "enter"}, Applied,
			[]Change{{Name: "length", Value: "64"}}},
		{"bad number keeps the form open", []string{"up", "backspace", "backspace", "0", "enter"}, Open, nil},
		{"q and e type into the input", []string{"up", "backspace", "backspace", "q", "e", "enter"}, Applied,
			[]Change{{Name: "length", Value: "qe"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New(text.Text{EN: "Edit"}, fields(), text.EN)
			if got := press(m, c.keys...); got != c.result {
				t.Fatalf("result %v, want %v", got, c.result)
			}
			if c.result != Applied {
				return
			}
			got := m.Changes()
			if len(got) != len(c.want) {
				t.Fatalf("changes %+v, want %+v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("change %d = %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestFormSaysWhatIsWrong(t *testing.T) {
	m := New(text.Text{EN: "Edit"}, fields(), text.EN)
	press(m, "up", "backspace", "backspace", "0", "enter")
	view := strings.Join(m.View(pane.NewStyles(true), 60, 20), "\n")
	if !strings.Contains(view, "length: out of range 1..4096") {
		t.Errorf("the check's error is not shown:\n%s", view)
	}
}

// TestFormFitsItsBox: at the inside of an 80×24 screen's frame, every
// line is within the width and the cursor's row is on screen, in both
// languages.
func TestFormFitsItsBox(t *testing.T) {
	for _, lang := range []text.Lang{text.EN, text.ZH, text.Both} {
		m := New(text.Text{EN: "Edit"}, fields(), lang)
		press(m, "up") // the last field: the list has to scroll to it
		for _, h := range []int{6, 10, 19} {
			lines := m.View(pane.NewStyles(true), 76, h)
			if len(lines) > h {
				t.Errorf("%s h=%d: %d lines", lang, h, len(lines))
			}
			joined := strings.Join(lines, "\n")
			if !strings.Contains(joined, "> [12") {
				t.Errorf("%s h=%d: the cursor's row is off screen:\n%s", lang, h, joined)
			}
			for _, l := range lines {
				if termtext.Width(l) > 76 {
					t.Errorf("%s h=%d: line wider than 76: %q", lang, h, l)
				}
			}
		}
	}
}

// A flags value given as changes (--edit reg-mr-data.access=+IBV_ACCESS_REMOTE_READ)
// opens as the tour's flags with the change made.
func TestFormRelativeFlags(t *testing.T) {
	f := fields()[:1]
	f[0].Current = "+IBV_ACCESS_REMOTE_READ | -IBV_ACCESS_REMOTE_WRITE"
	m := New(text.Text{EN: "Edit"}, f, text.EN)
	if got := m.Value(0); got != "IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ" {
		t.Errorf("value %q", got)
	}
}
