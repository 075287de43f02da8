package main

import (
	"bufio"
	"bytes"
	"context"
	"net/netip"
	"os/exec"
	"syscall"
	"time"

	"github.com/rdmatour/rdmatour/exercise"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// peerGrace is how long rdmatour's side may take to finish once the
// learner's program has ended (its last completions, the disconnect).
// After a program that failed, the side has only to see it gone (its
// DREQ, a flushed completion), or it waits for what will never come: a
// shorter grace keeps a failing check quick.
const (
	peerGrace       = 10 * time.Second
	peerGraceFailed = 3 * time.Second
)

// runAgainstPeer runs the learner's program bin against rdmatour's side
// of the tour at addr, in this process, within the time limit. A program
// still running at the limit is killed with its process group; the
// side's session is closed, releasing everything, before it returns.
func (r exerciseRun) runAgainstPeer(ctx context.Context, bin string, prov verbs.Provider, addr netip.Addr) (exercise.Evidence, error) {
	limit := time.Duration(r.limit)
	ev := exercise.Evidence{Limit: limit}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	port := r.checkPort()
	peer, err := steps.NewSession(r.peerConfig(prov, addr, port, limit))
	if err != nil {
		return ev, err
	}
	defer peer.Close()
	if peer.Config().Role == steps.Server {
		runUntil(ctx, peer, steps.MilestoneListening) // the program may connect from here on
	}
	cmd := exec.Command(bin, r.learnerArgs(addr, port)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return ev, err
	}
	ended := make(chan struct{})
	go func() { cmd.Wait(); close(ended) }()
	if peer.Config().Role == steps.Client {
		waitProgramListens(bufio.NewReader(stdout), ended)
	} else {
		go drain(stdout)
	}
	peerDone := make(chan struct{})
	go func() { defer close(peerDone); runUntil(ctx, peer, 0) }()
	select {
	case <-ended:
	case <-ctx.Done():
		ev.TimedOut = true
		killGroup(cmd)
		<-ended
	}
	grace := peerGrace
	if ev.TimedOut || cmd.ProcessState.ExitCode() != 0 {
		grace = peerGraceFailed
	}
	select {
	case <-peerDone:
	case <-time.After(grace):
		cancel()
		<-peerDone
	}
	ev.ExitCode = cmd.ProcessState.ExitCode()
	ev.LastLine = lastStderrLine(stderr.Bytes())
	ev.Peer = peer.Snapshot()
	return ev, nil
}

// peerConfig is rdmatour's side: the other role of the exercise's tour,
// on the real device, bounded by the time limit.
func (r exerciseRun) peerConfig(prov verbs.Provider, addr netip.Addr, port int, limit time.Duration) steps.Config {
	cfg := r.ex.Options().Config()
	cfg.Role = r.ex.Role.Peer()
	cfg.Provider = prov
	cfg.Timeout = limit
	cfg.BackendWhy = whyReal
	at := netip.AddrPortFrom(addr, uint16(port))
	if cfg.Role == steps.Server {
		cfg.Bind = at
	} else {
		cfg.Server = at
	}
	return cfg
}

// runUntil runs the session's steps until one reaches milestone (0: to
// the end), a step fails or ctx ends.
func runUntil(ctx context.Context, s *steps.Session, milestone steps.Milestone) {
	for ctx.Err() == nil {
		if done, _ := s.Done(); done {
			return
		}
		i := s.Next()
		if _, err := s.RunNext(ctx); err != nil {
			return
		}
		if all := s.Steps(); milestone != 0 && i < len(all) && all[i].Reaches(milestone) {
			return
		}
	}
}

// drain reads the program's stdout so it never blocks on a full pipe.
func drain(r interface{ Read([]byte) (int, error) }) {
	buf := make([]byte, 4096)
	for {
		if _, err := r.Read(buf); err != nil {
			return
		}
	}
}
