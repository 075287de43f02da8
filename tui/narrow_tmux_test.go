package tui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The 80×24-first layout in a real terminal: what only a terminal shows
// is how tmux reads the keys (shift+tab is ESC [ Z), how wide it draws
// each cell, and, with two processes, the server's screen changing while
// no key was pressed there (the client's WRITE landing).

// buildForTmux builds the binary, or skips when there is no tmux.
func buildForTmux(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and runs it in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := filepath.Join(t.TempDir(), "rdmatour")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/rdmatour").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// newTmux builds the binary (or skips) and starts a tmux server on a
// socket of this test's own, killed when the test ends. Its panes get a
// HOME of their own: the tmux tests run in parallel (they mostly wait
// for the screen), and a learner's progress file must not be shared.
func newTmux(t *testing.T, socket string) (bin string, s *tmuxSession) {
	t.Helper()
	bin = buildForTmux(t)
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	home, err := os.MkdirTemp("", "rdmatour-tmux-home-")
	if err != nil {
		t.Fatal(err)
	}
	s = &tmuxSession{t: t, socket: socket + "-" + name, home: home}
	t.Cleanup(func() {
		s.cmd("kill-server")
		removeWhenQuiet(t, home)
	})
	return bin, s
}

// removeWhenQuiet removes a panes' HOME once no program that has it as
// HOME is left. A killed tmux server hangs up on its panes, and rdmatour
// tears down and saves the learner's progress file there on SIGHUP, a
// moment after kill-server returns: removed at once (t.TempDir), the
// directory was "not empty" (fresh-ci, TestWordsInTmux, 2026-12-03), or
// came back after it was removed. A program still there after 20 s is a
// real fault.
func removeWhenQuiet(t *testing.T, dir string) {
	deadline := time.Now().Add(20 * time.Second)
	for homeInUse(dir) {
		if time.Now().After(deadline) {
			t.Errorf("a pane's program (HOME=%s) still runs 20 s after the tmux server was killed", dir)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Error(err)
	}
}

// homeInUse says whether a process on this host has HOME=dir in its
// environment (Linux /proc, as the tmux tests need).
func homeInUse(dir string) bool {
	want := []byte("\x00HOME=" + dir + "\x00")
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if p.Name()[0] < '0' || p.Name()[0] > '9' {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
		if err == nil && bytes.Contains(append([]byte{0}, env...), want) {
			return true
		}
	}
	return false
}

// tmuxPane is one window of a tmux server: its own target.
type tmuxPane struct {
	s      *tmuxSession
	target string
}

func (p tmuxPane) screen() string { return p.s.must("capture-pane", "-p", "-t", p.target) }
func (p tmuxPane) keys(k ...string) {
	p.s.must(append([]string{"send-keys", "-t", p.target}, k...)...)
}

func (p tmuxPane) waitFor(d time.Duration, ok func(string) bool) (string, bool) {
	deadline := time.Now().Add(d)
	for {
		sc := p.screen()
		if ok(sc) || time.Now().After(deadline) {
			return sc, ok(sc)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stepTo presses Enter until the header's progress reads done (each
// Enter waits for the step before it to finish).
func (p tmuxPane) stepTo(t *testing.T, done int) string {
	t.Helper()
	// A key sent before the program reads its terminal is lost (and cost
	// a 10 s wait below): first wait for the step counter to be drawn.
	sc, _ := p.waitFor(10*time.Second, func(sc string) bool { _, _, ok := progress(sc); return ok })
	for i := 0; ; i++ {
		d, _, ok := progress(sc)
		if ok && d >= done {
			return sc
		}
		if i > 60 {
			t.Fatalf("%s: never reached %d steps:\n%s", p.target, done, sc)
		}
		p.keys("Enter")
		sc, _ = p.waitFor(10*time.Second, func(sc string) bool { n, _, _ := progress(sc); return n > d })
	}
}

func flatScreen(sc string) string { return strings.Join(strings.Fields(sc), " ") }

// TestNarrowDemoInTmux: `rdmatour demo` at 80×24 with NO_COLOR (the
// focused tab is in brackets): shift+tab from the explanation reaches
// the C call pane above the tabs and z zooms it; at the client's RDMA
// WRITE the server's data buffer comes forward by itself and says so,
// and the WRITE's long call is reached by shift+tab and scrolled by ↓; in Chinese at the end the whole end banner is on screen,
// "按 q 退出" included.
func TestNarrowDemoInTmux(t *testing.T) {
	t.Parallel() // waits on the screen, mostly: the tmux tests overlap
	bin, s := newTmux(t, fmt.Sprintf("rdmatour-narrow-%d", os.Getpid()))
	cmdline := fmt.Sprintf("%s demo --backend sim --lang en --port %d; echo \"EXIT=$?\"; exec sleep 600", bin, freePort(t))
	s.must("new-session", "-d", "-s", "rt", "-x", "80", "-y", "24", "-e", "LANG=C.UTF-8", "-e", "NO_COLOR=1", cmdline)
	p := tmuxPane{s, "rt"}
	sc, ok := p.waitFor(10*time.Second, func(sc string) bool { _, _, ok := progress(sc); return ok })
	if !ok {
		t.Fatalf("no header:\n%s", sc)
	}
	checkFits(t, "start 80x24", sc, 80, 24)
	p.keys("BTab", "BTab") // Explain → Steps → the C call
	if sc, ok = p.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "[▲ C]") }); !ok {
		t.Fatalf("shift+tab twice did not reach the C call pane:\n%s", sc)
	}
	p.keys("z")
	if sc, ok = p.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "C call") && strings.Contains(sc, "z/esc: back") }); !ok {
		t.Fatalf("z did not zoom the C call pane:\n%s", sc)
	}
	p.keys("z") // back (Escape then Tab at once would read as Alt-Tab)
	if sc, ok = p.waitFor(5*time.Second, func(sc string) bool { return !strings.Contains(sc, "z/esc: back") }); !ok {
		t.Fatalf("z did not unzoom:\n%s", sc)
	}
	p.keys("Tab") // round to the Steps tab
	if sc, ok = p.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "[Steps]") }); !ok {
		t.Fatalf("tab from the C call pane did not go to the first tab:\n%s", sc)
	}
	for i := 0; !strings.Contains(sc, "13. RDMA WRITE into the server's buffer"); i++ {
		if i > 40 {
			t.Fatalf("never reached the client's WRITE:\n%s", sc)
		}
		done, _, _ := progress(sc)
		p.keys("Enter")
		sc, _ = p.waitFor(10*time.Second, func(sc string) bool { d, _, _ := progress(sc); return d > done })
	}
	landed := "Shown: the server's data buffer, where bytes just landed"
	if sc, ok = p.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, landed) }); !ok {
		t.Fatalf("the server's buffer did not come forward after the WRITE:\n%s", sc)
	}
	for _, want := range []string{"server · Live state", "|hello from rdmat|", "s: [server]|client"} {
		if !strings.Contains(sc, want) {
			t.Errorf("after the WRITE: no %q:\n%s", want, sc)
		}
	}
	checkFits(t, "write 80x24", sc, 80, 24)
	// The WRITE's call is longer than its pane: reach it and scroll it.
	p.keys("BTab")
	p.keys("BTab")
	p.keys("BTab")
	if sc, ok = p.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "[▲ C]") && strings.Contains(sc, "↑↓ 1-") }); !ok {
		t.Fatalf("shift+tab from the State tab did not reach the C call pane:\n%s", sc)
	}
	p.keys("Down")
	if sc, ok = p.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "↑↓ 2-") }); !ok {
		t.Errorf("↓ did not scroll the C call pane:\n%s", sc)
	}
	_, total, _ := progress(sc)
	p.keys("l")
	if sc, ok = p.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "中文") }); !ok {
		t.Fatalf("l did not switch to Chinese:\n%s", sc)
	}
	sc = p.stepTo(t, total)
	sc, ok = p.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(flatScreen(sc), "按 q 退出") })
	flat := flatScreen(sc)
	for _, want := range []string{"教程完成", "rdmatour export-c", "按 q 退出"} {
		if !ok || !strings.Contains(flat, want) {
			t.Errorf("the zh end banner at 80x24 has no %q:\n%s", want, sc)
		}
	}
	checkFits(t, "end zh 80x24", sc, 80, 24)
	p.keys("q")
	if sc, ok = p.waitFor(10*time.Second, func(sc string) bool { return strings.Contains(sc, "EXIT=") }); !ok || !strings.Contains(sc, "EXIT=0") {
		t.Errorf("q at the end did not exit 0:\n%s", sc)
	}
}

var twoDigitProgress = regexp.MustCompile(`\s1\d/18\s*$`)

// TestTwoTerminalsInTmux: a server at 80×24 and a client at 100×30, two
// processes on the simulated NIC. While the server waits for the
// client's notification, the client's WRITE lands in the server's
// buffer: the server's State tab comes forward by itself and says so
// (no key was pressed there). The client's header keeps its blank
// before a two-digit progress; both end with the whole "Tour complete"
// banner.
func TestTwoTerminalsInTmux(t *testing.T) {
	t.Parallel() // waits on the screen, mostly: the tmux tests overlap
	bin, s := newTmux(t, fmt.Sprintf("rdmatour-two-%d", os.Getpid()))
	port := freePort(t)
	srvCmd := fmt.Sprintf("%s server --backend sim --lang en --port %d; echo \"EXIT=$?\"; exec sleep 600", bin, port)
	cliCmd := fmt.Sprintf("%s client 127.0.0.1 --port %d --backend sim --lang en; echo \"EXIT=$?\"; exec sleep 600", bin, port)
	s.must("new-session", "-d", "-s", "srv", "-x", "80", "-y", "24", "-e", "LANG=C.UTF-8", "-e", "NO_COLOR=1", srvCmd)
	s.must("new-session", "-d", "-s", "cli", "-x", "100", "-y", "30", "-e", "LANG=C.UTF-8", "-e", "NO_COLOR=1", cliCmd)
	srv, cli := tmuxPane{s, "srv"}, tmuxPane{s, "cli"}
	for _, p := range []tmuxPane{srv, cli} {
		if sc, ok := p.waitFor(10*time.Second, func(sc string) bool { _, _, ok := progress(sc); return ok }); !ok {
			t.Fatalf("%s: no header:\n%s", p.target, sc)
		}
	}
	srv.stepTo(t, 4)        // listening
	srv.keys("Enter")       // waits for the connect request
	cli.stepTo(t, 11)       // the connect request is sent
	cli.keys("Enter")       // waits for ESTABLISHED
	srv.stepTo(t, 14)       // accept, ESTABLISHED
	srv.keys("Enter")       // waits for the client's notification
	sc := cli.stepTo(t, 13) // the RDMA WRITE
	if !twoDigitProgress.MatchString(strings.SplitN(sc, "\n", 2)[0]) {
		t.Errorf("client header: the progress runs into the language: %q", strings.SplitN(sc, "\n", 2)[0])
	}
	checkFits(t, "client 100x30", sc, 100, 30)
	landed := "Shown: the server's data buffer, where bytes just landed"
	sc, ok := srv.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, landed) })
	if !ok || !strings.Contains(sc, "|hello from rdmat|") || !strings.Contains(sc, "[State]") {
		t.Errorf("the server's buffer did not come forward while it waited:\n%s", sc)
	}
	checkFits(t, "server 80x24", sc, 80, 24)
	cli.stepTo(t, 18)
	srv.stepTo(t, 17)
	for _, p := range []tmuxPane{srv, cli} {
		sc, ok := p.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(flatScreen(sc), "— q quits.") })
		if !ok || !strings.Contains(flatScreen(sc), "Tour complete: every resource is released.") {
			t.Errorf("%s: no whole Tour complete banner:\n%s", p.target, sc)
		}
		p.keys("q")
		if sc, ok := p.waitFor(10*time.Second, func(sc string) bool { return strings.Contains(sc, "EXIT=") }); !ok || !strings.Contains(sc, "EXIT=0") {
			t.Errorf("%s: q at the end did not exit 0:\n%s", p.target, sc)
		}
	}
}
