package tui

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Issue 26's words, read off a real terminal at 80×24 and 100×30 in
// English and Chinese: the server that waits gives the client's exact
// command; the read tour ends with "Tour complete · Try next" and no
// "via send"; a lesson's prediction is judged ✓ or ✗ with a tally, and
// its expected error is not followed by advice to start again.

// runToEnd presses Enter until the tour's end banner, answering a
// prediction with pick when one is asked.
func runToEnd(t *testing.T, p tmuxPane, pick string, end func(string) bool) string {
	t.Helper()
	for i := 0; i < 80; i++ {
		sc := p.screen()
		if end(flatScreen(sc)) {
			return sc
		}
		if strings.Contains(sc, "Predict first") || strings.Contains(sc, "先猜一猜") {
			p.keys(pick)
			time.Sleep(100 * time.Millisecond)
		}
		p.keys("Enter")
		time.Sleep(150 * time.Millisecond)
	}
	sc := p.screen()
	t.Fatalf("%s: never reached the end:\n%s", p.target, sc)
	return sc
}

func TestWordsInTmux(t *testing.T) {
	t.Parallel() // waits on the screen, mostly: the tmux tests overlap
	bin, s := newTmux(t, fmt.Sprintf("rdmatour-words-%d", os.Getpid()))
	start := func(name string, w, h int, args string) tmuxPane {
		cmd := fmt.Sprintf("%s %s; echo \"EXIT=$?\"; exec sleep 600", bin, args)
		s.must("new-session", "-d", "-s", name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-e", "LANG=C.UTF-8", "-e", "NO_COLOR=1", cmd)
		return tmuxPane{s, name}
	}

	t.Run("the peer's command", func(t *testing.T) {
		for _, lang := range []string{"en", "zh"} {
			port := freePort(t)
			srv := start("srv-"+lang, 80, 24, fmt.Sprintf("server --backend sim --lang %s --port %d --tour read", lang, port))
			want := regexp.MustCompile(`rdmatour client \S+ --port ` + fmt.Sprint(port) + ` --backend sim --tour read`)
			srv.stepTo(t, 4)
			srv.keys("Enter") // waits for the connect request
			// The command wraps inside the pane: read it without the borders.
			inside := func(sc string) string { return flatScreen(strings.ReplaceAll(sc, "│", " ")) }
			sc, ok := srv.waitFor(10*time.Second, func(sc string) bool { return want.MatchString(inside(sc)) })
			if !ok {
				t.Errorf("%s: the waiting server does not give the client's command:\n%s", lang, sc)
			}
			if lang == "zh" && !strings.Contains(inside(sc), "--lang zh") {
				t.Errorf("zh: the command lacks --lang zh:\n%s", sc)
			}
			checkFits(t, "server "+lang, sc, 80, 24)
		}
	})

	t.Run("the read tour's end", func(t *testing.T) {
		p := start("read", 100, 30, fmt.Sprintf("demo --backend sim --lang en --port %d --tour read", freePort(t)))
		sc := runToEnd(t, p, "1", func(f string) bool { return strings.Contains(f, "Tour complete") })
		f := flatScreen(sc)
		if !strings.Contains(f, "Try next") || strings.Contains(f, "via send") {
			t.Errorf("the read tour's end: want Tour complete · Try next and no \"via send\":\n%s", sc)
		}
		checkFits(t, "read end", sc, 100, 30)
	})

	t.Run("a lesson's prediction", func(t *testing.T) {
		for _, c := range []struct{ lang, tally, restart string }{
			{"en", `Lesson complete: .*[Pp]redictions: [0-2] of 2 right`, "Start both sides again"}, // the demo: both sides predict
			{"zh", `课程完成：.*预测：2 个里对了 [0-2] 个`, "两端都重新启动"},
		} {
			p := start("lesson-"+c.lang, 80, 24, fmt.Sprintf("demo --backend sim --lang %s --port %d --lesson bad-rkey", c.lang, freePort(t)))
			tally := regexp.MustCompile(c.tally)
			sc := runToEnd(t, p, "2", func(f string) bool { return tally.MatchString(f) })
			if f := flatScreen(sc); !strings.ContainsAny(f, "✓✗") || strings.Contains(f, c.restart) {
				t.Errorf("%s: want ✓ or ✗ and no advice to start again:\n%s", c.lang, sc)
			}
			checkFits(t, "lesson "+c.lang, sc, 80, 24)
		}
	})
}
