// Command rdmatour teaches RDMA by running it: a live RDMA connection
// between two terminals, one real verbs call per keypress, next to an
// explanation of each call and the state it changed.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"syscall"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 && args[0] == "export-c" {
		return runExportC(ctx, args[1:], stdout, stderr)
	}
	o, err := parseArgs(args, getenv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "rdmatour: %s\n", ue.msg)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmatour: %v\n", err)
		return 2
	}
	switch o.cmd {
	case "version":
		fmt.Fprintf(stdout, "rdmatour %s\n", version)
		return 0
	case "devices":
		return runDevices(stdout, stderr)
	case "doctor":
		return runDoctor(stdout, stderr)
	case "lessons":
		listLessons(stdout, o.lang)
		return 0
	}
	if err := runTour(ctx, o, stdin, stdout, stderr); err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "rdmatour: interrupted; everything was released")
			return 130
		}
		msg := steps.ExplainIn(err, firstLang(o.lang))
		fmt.Fprintf(stderr, "rdmatour: %s\n", msg)
		return 1
	}
	return 0
}

func firstLang(l string) string {
	if l == "zh" {
		return "zh"
	}
	return "en"
}

// runTour builds the session(s) and hands them to the TUI or the plain
// runner.
func runTour(ctx context.Context, o options, stdin io.Reader, stdout, stderr io.Writer) error {
	target, err := tourTarget(o)
	if err != nil {
		return err
	}
	prov, why, err := chooseBackend(o, target)
	if err != nil {
		return err
	}
	base := steps.Config{Notify: o.notify, Provider: prov, BackendWhy: why, Timeout: o.timeout, Message: o.message,
		Lesson: o.lesson, RNRRetry: uint8(o.rnr), Track: o.track}
	var sessions []*steps.Session
	switch o.cmd {
	case "server":
		cfg := base
		cfg.Role = steps.Server
		cfg.AcceptTimeout = o.wait
		cfg.Bind = netip.AddrPortFrom(target, uint16(o.port))
		s, err := steps.NewSession(cfg)
		if err != nil {
			return err
		}
		sessions = append(sessions, s)
	case "client":
		cfg := base
		cfg.Role = steps.Client
		cfg.Server = netip.AddrPortFrom(target, uint16(o.port))
		if o.src != "" {
			src, err := netip.ParseAddr(o.src)
			if err != nil {
				return fmt.Errorf("source address %q is not an IP address", o.src)
			}
			cfg.Src = src
		}
		s, err := steps.NewSession(cfg)
		if err != nil {
			return err
		}
		sessions = append(sessions, s)
	case "demo":
		srv, cli, err := demoSessions(base, target, o.port)
		if err != nil {
			return err
		}
		sessions = append(sessions, srv, cli)
	}
	interactive := stdinIsTerminal() && stdoutIsTerminal()
	if !o.plain && interactive {
		return runTUI(ctx, o, sessions)
	}
	p := &plainRunner{out: stdout, lang: o.lang, docs: docs.Page, explain: !o.brief, pauseAt: o.pauseAt, stdin: stdin}
	if interactive && !o.auto {
		p.in = bufio.NewReader(stdin)
	}
	if len(sessions) == 2 {
		return p.runDemo(ctx, sessions[0], sessions[1])
	}
	return p.run(ctx, sessions[0])
}

// tourTarget is the address the tour is about: the server's bind address,
// the client's server, or the demo's loopback.
func tourTarget(o options) (netip.Addr, error) {
	switch o.cmd {
	case "server":
		if o.bind == "" {
			return netip.IPv4Unspecified(), nil
		}
		a, err := netip.ParseAddr(o.bind)
		if err != nil {
			return a, fmt.Errorf("--bind %q is not an IP address", o.bind)
		}
		return a.Unmap(), nil
	case "client":
		return resolveHost(o.server)
	}
	if o.bind != "" {
		a, err := netip.ParseAddr(o.bind)
		if err != nil {
			return a, fmt.Errorf("--bind %q is not an IP address", o.bind)
		}
		return a.Unmap(), nil
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1}), nil
}

// demoSessions makes a server and a client on this machine.
func demoSessions(base steps.Config, addr netip.Addr, port int) (*steps.Session, *steps.Session, error) {
	scfg := base
	scfg.Role = steps.Server
	scfg.Bind = netip.AddrPortFrom(addr, uint16(port))
	srv, err := steps.NewSession(scfg)
	if err != nil {
		return nil, nil, err
	}
	ccfg := base
	ccfg.Role = steps.Client
	ccfg.Server = netip.AddrPortFrom(addr, uint16(port))
	cli, err := steps.NewSession(ccfg)
	if err != nil {
		return nil, nil, err
	}
	return srv, cli, nil
}

// listLessons prints every lesson with its one-line summary.
func listLessons(out io.Writer, lang string) {
	fmt.Fprintln(out, steps.Text{EN: "Lessons: the tour with one deliberate mistake; run both sides with --lesson NAME", ZH: "课程：故意犯一个错的完整流程；两端都加 --lesson NAME 运行"}.In(firstLang(lang)))
	for _, l := range steps.Lessons() {
		fmt.Fprintf(out, "\n  %-20s %s\n", l.Name, l.Title.In(firstLang(lang)))
		fmt.Fprintf(out, "  %-20s %s\n", "", l.Summary.In(firstLang(lang)))
		if lang == "both" {
			fmt.Fprintf(out, "  %-20s %s — %s\n", "", l.Title.ZH, l.Summary.ZH)
		}
	}
	fmt.Fprintln(out, "\n  e.g. rdmatour demo --lesson bad-rkey")
}
