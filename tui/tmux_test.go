package tui

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/termtext"
)

// tmuxSession drives the built binary in a real terminal: a detached tmux
// server on a socket of its own.
type tmuxSession struct {
	t      *testing.T
	socket string
	home   string // HOME for the server and its panes ("": this process's)
}

func (s *tmuxSession) cmd(args ...string) (string, error) {
	all := append([]string{"-L", s.socket, "-u", "-f", "/dev/null"}, args...)
	cmd := exec.Command("tmux", all...)
	if s.home != "" { // the server, started by the first command, passes it on
		cmd.Env = append(os.Environ(), "HOME="+s.home)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (s *tmuxSession) must(args ...string) string {
	s.t.Helper()
	out, err := s.cmd(args...)
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (s *tmuxSession) screen() string { return s.must("capture-pane", "-p", "-t", "rt") }

// waitFor polls the screen until ok says yes, for at most d; it returns
// the last screen and whether ok ever said yes.
func (s *tmuxSession) waitFor(d time.Duration, ok func(screen string) bool) (string, bool) {
	deadline := time.Now().Add(d)
	for {
		sc := s.screen()
		if ok(sc) {
			return sc, true
		}
		if time.Now().After(deadline) {
			return sc, false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *tmuxSession) paneVar(name string) string {
	return strings.TrimSpace(s.must("display-message", "-p", "-t", "rt", "#{"+name+"}"))
}

var progressRE = regexp.MustCompile(`(\d+)/(\d+)\s*$`)

// progress reads "done/total" from the header's right end.
func progress(screen string) (done, total int, ok bool) {
	first, _, _ := strings.Cut(screen, "\n")
	m := progressRE.FindStringSubmatch(first)
	if m == nil {
		return 0, 0, false
	}
	done, _ = strconv.Atoi(m[1])
	total, _ = strconv.Atoi(m[2])
	return done, total, true
}

// checkFits asserts no captured line is wider than w cells and the screen
// has h lines (capture-pane trims trailing blanks, so lines may be shorter).
func checkFits(t *testing.T, name, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(lines) > h {
		t.Errorf("%s: %d lines on a %d-line terminal", name, len(lines), h)
	}
	for i, l := range lines {
		if termtext.Width(l) > w {
			t.Errorf("%s: line %d is %d cells on a %d-cell terminal: %q", name, i, termtext.Width(l), w, l)
		}
	}
	// The frame is whole: the header on top and the help line at the bottom.
	if !strings.Contains(lines[0], "SIMULATED NIC") && !strings.Contains(lines[0], "模拟网卡") {
		t.Errorf("%s: no header on the first line:\n%s", name, screen)
	}
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d (the help line is the last):\n%s", name, len(lines), h, screen)
	}
}

// TestRealTerminal runs `rdmatour demo --backend sim` in tmux: the whole
// tour by Enter, the Result on screen, Chinese after l, a resize to
// 80×24, and q restoring the terminal with exit status 0.
func TestRealTerminal(t *testing.T) {
	t.Parallel() // waits on the screen, mostly: the tmux tests overlap
	bin, s := newTmux(t, fmt.Sprintf("rdmatour-test-%d", os.Getpid()))
	port := freePort(t)
	// The shell prints the exit status and stays, so that after q the
	// pane shows what the terminal was left like.
	cmdline := fmt.Sprintf("%s demo --backend sim --lang en --port %d; echo \"EXIT=$?\"; exec sleep 600", bin, port)
	s.must("new-session", "-d", "-s", "rt", "-x", "120", "-y", "40", "-e", "LANG=C.UTF-8", "-e", "NO_COLOR=", cmdline)

	sc, ok := s.waitFor(10*time.Second, func(sc string) bool { _, _, ok := progress(sc); return ok })
	if !ok {
		t.Fatalf("no header after 10 s:\n%s", sc)
	}
	checkFits(t, "start 120x40", sc, 120, 40)
	if s.paneVar("alternate_on") != "1" {
		t.Error("the TUI is not on the alternate screen")
	}

	// Enter, one step at a time: wait for each to finish (the count in
	// the header moves) before the next keypress.
	_, total, _ := progress(sc)
	for i := 0; ; i++ {
		done, _, _ := progress(sc)
		if done == total {
			break
		}
		if i > total+5 {
			t.Fatalf("the tour did not finish after %d Enters:\n%s", i, sc)
		}
		s.must("send-keys", "-t", "rt", "Enter")
		sc, ok = s.waitFor(10*time.Second, func(sc string) bool { d, _, _ := progress(sc); return d > done })
		if !ok {
			t.Fatalf("step %d did not finish in 10 s:\n%s", done+1, sc)
		}
	}
	// The Result may wrap across lines; join them.
	flat := strings.Join(strings.Fields(sc), " ")
	want := `The server's buffer holds "hello from rdmatour client via RDMA WRITE"`
	if !strings.Contains(flat, want) {
		t.Errorf("the Result is not on screen:\n%s", sc)
	}
	checkFits(t, "end 120x40", sc, 120, 40)

	// l: Chinese.
	s.must("send-keys", "-t", "rt", "l")
	sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "server 的 buffer 里现在是") })
	if !ok {
		t.Errorf("no Chinese after l:\n%s", sc)
	}
	checkFits(t, "zh 120x40", sc, 120, 40)

	// Resize to 80×24: the narrow layout, still exactly the terminal.
	s.must("resize-window", "-t", "rt", "-x", "80", "-y", "24")
	sc, ok = s.waitFor(5*time.Second, func(sc string) bool {
		lines := strings.Split(strings.TrimRight(sc, "\n"), "\n")
		// The footer wraps: "enter" is on its first line, one of the last three.
		return len(lines) == 24 && strings.Contains(sc, "步骤") && strings.Contains(strings.Join(lines[len(lines)-3:], "\n"), "enter")
	})
	if !ok {
		t.Errorf("no 80x24 layout after the resize:\n%s", sc)
	}
	checkFits(t, "zh 80x24", sc, 80, 24)

	// q: the program tears down, exits 0 and gives the terminal back.
	s.must("send-keys", "-t", "rt", "q")
	sc, ok = s.waitFor(10*time.Second, func(sc string) bool { return strings.Contains(sc, "EXIT=") })
	if !ok {
		t.Fatalf("still running 10 s after q:\n%s", sc)
	}
	if !strings.Contains(sc, "EXIT=0") {
		t.Errorf("exit status is not 0:\n%s", sc)
	}
	if strings.Contains(sc, "SIMULATED NIC") {
		t.Errorf("the TUI is still on screen after exit:\n%s", sc)
	}
	if s.paneVar("alternate_on") != "0" {
		t.Error("the alternate screen was not left")
	}
	if s.paneVar("cursor_flag") != "1" {
		t.Error("the cursor was left hidden")
	}
	if s.paneVar("mouse_any_flag") != "0" || s.paneVar("mouse_button_flag") != "0" || s.paneVar("mouse_standard_flag") != "0" {
		t.Error("mouse reporting was left on")
	}
}
