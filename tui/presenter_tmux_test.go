package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestPresenterInTmux runs `rdmatour demo` in a 100×30 tmux terminal, a
// projector's size: after the client's WRITE the screen shows its C call
// and, at once, the server's buffer with the bytes highlighted; they stay
// highlighted while the presenter zooms in and out, until the next step.
func TestPresenterInTmux(t *testing.T) {
	t.Parallel() // waits on the screen, mostly: the tmux tests overlap
	bin, s := newTmux(t, fmt.Sprintf("rdmatour-presenter-%d", os.Getpid()))
	cmdline := fmt.Sprintf("%s demo --backend sim --lang en --port %d; echo \"EXIT=$?\"; exec sleep 600", bin, freePort(t))
	s.must("new-session", "-d", "-s", "rt", "-x", "100", "-y", "30", "-e", "LANG=C.UTF-8", cmdline)
	sc, ok := s.waitFor(10*time.Second, func(sc string) bool { _, _, ok := progress(sc); return ok })
	if !ok {
		t.Fatalf("no header:\n%s", sc)
	}
	const note = "highlighted: written since your last step"
	for i := 0; !strings.Contains(sc, "RDMA WRITE into the ser"); i++ {
		if i > 40 {
			t.Fatalf("never reached the client's WRITE:\n%s", sc)
		}
		done, _, _ := progress(sc)
		s.must("send-keys", "-t", "rt", "Enter")
		sc, _ = s.waitFor(10*time.Second, func(sc string) bool { d, _, _ := progress(sc); return d > done })
	}
	sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, note) })
	if !ok {
		t.Fatalf("the server's buffer is not highlighted after the WRITE:\n%s", sc)
	}
	checkFits(t, "presenter 100x30", sc, 100, 30)
	for _, want := range []string{"ibv_post_send(qp", "IBV_WR_RDMA_WRITE", "server · Live state", "|hello fr|", "Timeline"} {
		if !strings.Contains(sc, want) {
			t.Errorf("presenter: no %q on one screen:\n%s", want, sc)
		}
	}
	time.Sleep(1500 * time.Millisecond) // longer than the old one-second highlight
	s.must("send-keys", "-t", "rt", "z")
	sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "z/esc: back") })
	if !ok || strings.Contains(sc, "Live state") {
		t.Fatalf("z did not zoom the explanation:\n%s", sc)
	}
	s.must("send-keys", "-t", "rt", "Escape")
	sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "Live state") })
	if !ok || !strings.Contains(sc, note) {
		t.Fatalf("after esc: the layout or the highlight is gone:\n%s", sc)
	}
	s.must("send-keys", "-t", "rt", "Enter")
	sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "Poll the WRITE") && !strings.Contains(sc, note) })
	if !ok {
		t.Errorf("the highlight outlived the next step:\n%s", sc)
	}
	s.must("send-keys", "-t", "rt", "q")
	if sc, ok = s.waitFor(10*time.Second, func(sc string) bool { return strings.Contains(sc, "EXIT=") }); !ok {
		t.Errorf("q did not end the program:\n%s", sc)
	}
}
