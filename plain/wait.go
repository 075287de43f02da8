package plain

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// lineFeed reads the learner's lines in one goroutine, so that the plain
// runner can both wait for Enter before a step and answer an Enter pressed
// while a step still waits (instead of letting it run the next step
// unseen, or dropping it silently).
type lineFeed struct {
	lines chan string // one per line; closed at end of input
}

func newLineFeed(r io.Reader) *lineFeed {
	f := &lineFeed{lines: make(chan string)}
	br := bufio.NewReader(r)
	go func() {
		defer close(f.lines)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			f.lines <- line
		}
	}()
	return f
}

// next waits for a line: ok is false at end of input; err is ctx's.
func (f *lineFeed) next(ctx context.Context) (ok bool, err error) {
	_, ok, err = f.nextLine(ctx)
	return ok, err
}

// nextLine is next with the line's text (a lesson's prediction).
func (f *lineFeed) nextLine(ctx context.Context) (line string, ok bool, err error) {
	select {
	case line, ok := <-f.lines:
		return line, ok, nil
	case <-ctx.Done():
		return "", false, ctx.Err()
	}
}

// runStep runs the next step of s. When the step waits, it first says on
// what — the peer's step to reach, from the tour plan — and, while it
// waits, answers every line typed with a note saying why nothing happens.
func (p *Runner) runStep(ctx context.Context, s steps.Runner, st steps.Step, demo bool) (steps.Outcome, error) {
	var pw steps.PeerWait
	onPeer := false
	if !demo {
		pw, onPeer = s.WaitFor(s.Next())
	}
	if st.Waits {
		switch {
		case onPeer && s.Config().Interactive:
			fmt.Fprintf(p.out, "  … %s %s\n", text.Text{EN: "waiting for the peer:", ZH: "等待对端："}.Joined(p.lang), guide.WhatPeerMustDo(pw).Joined(p.lang))
			fmt.Fprintf(p.out, "    %s\n", pw.Timer.Joined(p.lang))
		case onPeer:
			fmt.Fprintf(p.out, "  … %s %s\n", text.Text{EN: "waiting for", ZH: "等待"}.Joined(p.lang), guide.WhatPeerMustReach(pw).Joined(p.lang))
		default:
			fmt.Fprintf(p.out, "  … %s\n", text.Text{EN: "waiting", ZH: "等待中"}.Joined(p.lang))
		}
	}
	if p.in == nil || !st.Waits {
		return s.RunNext(ctx) // lines typed ahead stay for the next prompt
	}
	type result struct {
		out steps.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := s.RunNext(ctx)
		done <- result{out, err}
	}()
	for {
		select {
		case r := <-done:
			return r.out, r.err
		case _, ok := <-p.in.lines:
			if !ok {
				p.in = nil // input closed: wait here, then run the rest straight through
				r := <-done
				return r.out, r.err
			}
			fmt.Fprintf(p.out, "  (%s)\n", guide.WaitNote(pw, onPeer).Joined(p.lang))
		}
	}
}

// lineWriter serialises writes: the plain runner's output and lines a
// session's goroutines print (a one-client server turning a client away)
// share one terminal, and each Fprintf is one Write.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
