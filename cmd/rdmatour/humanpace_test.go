package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// termPair is a tmux server of its own with one window per side, each
// running the built binary's full-screen UI in a real terminal.
type termPair struct {
	t    *testing.T
	sock string
}

func newTermPair(t *testing.T) *termPair {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	p := &termPair{t: t, sock: fmt.Sprintf("rdmatour-pace-%d-%s", os.Getpid(), freePort(t))}
	t.Cleanup(func() { p.tmux("kill-server") })
	return p
}

func (p *termPair) tmux(args ...string) string {
	out, _ := exec.Command("tmux", append([]string{"-L", p.sock, "-u", "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out)
}

// start runs rdmatour ARGS in window name; the shell prints the exit
// status and stays, so that the terminal after exit can be read.
func (p *termPair) start(name string, args ...string) {
	cmd := binPath + " " + strings.Join(args, " ") + "; echo EXIT=$?; exec sleep 900"
	p.tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-e", "LANG=C.UTF-8", cmd)
}

// screen is the window's text; -J joins lines the terminal wrapped (the
// summary after exit is longer than the window is wide).
func (p *termPair) screen(name string) string { return p.tmux("capture-pane", "-p", "-J", "-t", name) }
func (p *termPair) key(name, k string)        { p.tmux("send-keys", "-t", name, k) }

// waitFor polls the window until ok, for at most d.
func (p *termPair) waitFor(name string, d time.Duration, what string, ok func(string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := p.screen(name)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: no %s after %v:\n%s", name, what, d, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var headerProgress = regexp.MustCompile(`(\d+)/(\d+)\s*$`)

// progressOf reads "done/total" from the header's right end.
func progressOf(screen string) (done, total int) {
	first, _, _ := strings.Cut(screen, "\n")
	m := headerProgress.FindStringSubmatch(first)
	if m == nil {
		return -1, -1
	}
	done, _ = strconv.Atoi(m[1])
	total, _ = strconv.Atoi(m[2])
	return done, total
}

// stepTo presses Enter in window name until done/… reaches n.
func (p *termPair) stepTo(name string, n int) {
	p.t.Helper()
	for {
		done, _ := progressOf(p.screen(name))
		if done >= n {
			return
		}
		p.key(name, "Enter")
		p.waitFor(name, 20*time.Second, fmt.Sprintf("step %d", done+1), func(s string) bool { d, _ := progressOf(s); return d > done })
	}
}

// flatScreen is the screen's text without pane borders or line breaks, so
// that a sentence wrapped in a pane can be searched for.
func flatScreen(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(strings.Trim(l, " │╭╮╰╯─") + " ")
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// Human pace, in two real terminals on the simulated NIC: the client
// waits for ESTABLISHED while the server's user reads for RDMATOUR_IDLE
// (3m in scripts/test.sh's stage) — far past --timeout's 30 s — before
// accepting. The client's screen says what the server must do, answers
// an Enter pressed meanwhile, and the tour then completes on both sides;
// q leaves each side's one-line summary on its terminal.
func TestIdleMidTourInTmux(t *testing.T) {
	idle, err := time.ParseDuration(os.Getenv("RDMATOUR_IDLE"))
	if err != nil {
		t.Skip("set RDMATOUR_IDLE (e.g. 3m) to run the idle tour; scripts/test.sh does in its human-pace stage")
	}
	p := newTermPair(t)
	port := freePort(t)
	p.start("srv", "server", port, "--backend", "sim", "--lang", "en")
	p.waitFor("srv", 20*time.Second, "header", func(s string) bool { d, _ := progressOf(s); return d == 0 })
	p.stepTo("srv", 4) // listening
	p.start("cli", "client", "127.0.0.1", port, "--backend", "sim", "--lang", "en")
	p.waitFor("cli", 20*time.Second, "header", func(s string) bool { d, _ := progressOf(s); return d == 0 })
	p.key("srv", "Enter") // get-connect-request: waits for the client
	p.stepTo("cli", 11)   // up to rdma_connect
	p.stepTo("srv", 12)   // the connect request, PD, CQ, QP, MRs, post-recv: then the server's user reads
	p.key("cli", "Enter") // get-established: waits for the accept
	// The hint wraps in the call pane: look for its two halves.
	hint := func(s string) bool {
		return strings.Contains(s, "on the server: press Enter until step 13,") && strings.Contains(s, "Accept, handing out addr and rkey")
	}
	p.waitFor("cli", 10*time.Second, "waiting hint", hint)
	p.key("cli", "Enter")
	p.waitFor("cli", 10*time.Second, "note for Enter while waiting", func(s string) bool {
		return strings.Contains(s, "still waiting for the server (step 13 there): Enter does nothing until then; q quits")
	})

	time.Sleep(idle)
	cli := p.screen("cli")
	if d, _ := progressOf(cli); d != 11 || strings.Contains(cli, "✗") || !hint(cli) {
		t.Fatalf("after %v the client is no longer waiting (done %d):\n%s", idle, d, cli)
	}

	// The server's user reads on and catches up; both finish.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		sd, st := progressOf(p.screen("srv"))
		cd, ct := progressOf(p.screen("cli"))
		if sd == st && cd == ct && st > 0 && ct > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tour did not complete: server %d/%d, client %d/%d\n%s\n%s", sd, st, cd, ct, p.screen("srv"), p.screen("cli"))
		}
		for _, w := range []string{"srv", "cli"} {
			if d, tot := progressOf(p.screen(w)); d < tot {
				p.key(w, "Enter")
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	for _, w := range []string{"srv", "cli"} {
		s := p.waitFor(w, 10*time.Second, "tour complete", func(s string) bool {
			return strings.Contains(flatScreen(s), "Tour complete: every resource is released.")
		})
		if !strings.Contains(flatScreen(s), "Try next: --lesson no-recv · rdmatour lessons") {
			t.Errorf("%s: no suggestion what to try next:\n%s", w, s)
		}
	}
	if !strings.Contains(flatScreen(p.screen("srv")), `The server's buffer holds "hello from rdmatour client via RDMA WRITE"`) {
		t.Errorf("no result on the server:\n%s", p.screen("srv"))
	}
	for w, want := range map[string]string{
		"srv": "rdmatour server: tour complete, 17/17 steps on the simulated NIC (sim0, not real RDMA); server: The server's buffer holds",
		"cli": "rdmatour client: tour complete, 18/18 steps on the simulated NIC (sim0, not real RDMA)",
	} {
		p.key(w, "q")
		s := p.waitFor(w, 20*time.Second, "exit", func(s string) bool { return strings.Contains(s, "EXIT=") })
		if !strings.Contains(s, "EXIT=0") || !strings.Contains(s, want) {
			t.Errorf("%s after q: want exit 0 and the summary %q:\n%s", w, want, s)
		}
	}
}

// The built binary's full-screen UI in a pseudo-terminal (script(1)):
// --auto runs the demo by itself to the end, and q — at the end, or
// before it — leaves the one-line summary on the terminal.
func TestTUISummaryAndAuto(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("needs script(1) from util-linux for a pseudo-terminal")
	}
	for _, tt := range []struct {
		name, args, waitFor string
		code                int
		summary             string
	}{
		{"q before the end", "demo --backend sim --lang en", "run next step", 130,
			"rdmatour demo: quit before the end, server 0/17, client 0/18 steps on the simulated NIC (sim0, not real RDMA) (next: Create the CM event channel)"},
		{"--auto to the end", "demo --backend sim --lang en --auto", "Tour complete", 0,
			"rdmatour demo: tour complete, server 17/17, client 18/18 steps on the simulated NIC (sim0, not real RDMA); server: The server's buffer holds \"hello from rdmatour client via RDMA WRITE\". It learned of it because a SEND completed its posted RECV (RDMA_WRITE_DONE)."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startRaw(t, script, "-qec", "env TERM=xterm-256color COLUMNS=160 "+binPath+" "+tt.args+" --port "+freePort(t), "/dev/null")
			p.waitFor(t, tt.waitFor, 60*time.Second)
			p.stdin.Write([]byte("q"))
			code := p.wait(t, 20*time.Second)
			if out := p.out.String(); code != tt.code || !strings.Contains(out, tt.summary) {
				t.Errorf("exit %d (want %d); want the summary %q in:\n%q", code, tt.code, tt.summary, tail(out, 600))
			}
		})
	}
}
