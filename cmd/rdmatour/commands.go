package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/netip"
	"os"
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/plain"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// console is where a command reads and writes.
type console struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// runCommand runs the subcommand o asks for and returns the exit status.
func runCommand(ctx context.Context, o options, c console) int {
	switch o.cmd {
	case cmdVersion:
		fmt.Fprintf(c.stdout, "rdmatour %s\n", version)
		return 0
	case cmdDevices:
		return runDevices(c.stdout, c.stderr)
	case cmdDoctor:
		return runDoctor(c)
	case cmdLessons:
		listLessons(c.stdout, o.lang)
		return 0
	case cmdEdits:
		return c.finish(o, listEdits(c.stdout, o.editsOf, o.lang))
	case cmdServer:
		if o.workshop {
			return c.finish(o, runWorkshop(ctx, o, c))
		}
		return c.finish(o, runServer(ctx, o, c))
	case cmdClient:
		return c.finish(o, runClient(ctx, o, c))
	case cmdDemo:
		return c.finish(o, runDemo(ctx, o, c))
	case cmdReplay:
		return c.finish(o, runReplay(ctx, o, c))
	}
	return c.finish(o, usagef("unknown command %q", o.cmd))
}

// runServer listens on --bind/--port and runs the server's tour.
func runServer(ctx context.Context, o options, c console) error {
	addr, err := parseBind(o.bind, netip.IPv4Unspecified())
	if err != nil {
		return err
	}
	cfg := o.config(steps.Server)
	cfg.Bind = netip.AddrPortFrom(addr, uint16(o.port))
	return runTour(ctx, o, c, addr, cfg)
}

// runClient resolves SERVER and runs the client's tour against it.
func runClient(ctx context.Context, o options, c console) error {
	addr, err := resolveHost(o.server)
	if err != nil {
		return err
	}
	cfg := o.config(steps.Client)
	cfg.Server = netip.AddrPortFrom(addr, uint16(o.port))
	if o.src != "" {
		if cfg.Src, err = parseSrc(o.src, addr); err != nil {
			return err
		}
	}
	for follows := 0; ; follows++ {
		err := runTour(ctx, o, c, addr, cfg)
		plan, follow := roomPlanOf(o, err, follows)
		if !follow {
			return err
		}
		fmt.Fprintln(c.stdout, followLine(plan).In(o.lang))
		o = o.followRoom(plan) // workshop_attendee.go
		cfg.Lesson, cfg.Tour, cfg.Notify, cfg.Message = o.lesson, o.tour, o.notify, o.message
	}
}

// runDemo runs both sides on this machine, in one terminal.
func runDemo(ctx context.Context, o options, c console) error {
	addr, err := parseBind(o.bind, netip.AddrFrom4([4]byte{127, 0, 0, 1}))
	if err != nil {
		return err
	}
	for {
		srv, cli := o.config(steps.Server), o.config(steps.Client)
		srv.Bind = netip.AddrPortFrom(addr, uint16(o.port))
		cli.Server = srv.Bind
		err := runTour(ctx, o, c, addr, srv, cli)
		lesson, again := lessonChosen(err)
		if !again {
			return err
		}
		// The learner chose a lesson (L, then r): both sides are this
		// process, so both start again from the first step with it.
		fmt.Fprintln(c.stdout, restartLine(o, lesson).In(o.lang))
		o = o.withLesson(lesson)
	}
}

// parseBind reads --bind; "" means def.
func parseBind(bind string, def netip.Addr) (netip.Addr, error) {
	if bind == "" {
		return def, nil
	}
	a, err := netip.ParseAddr(bind)
	if err != nil {
		return a, usagef("--bind %q is not an IP address", bind)
	}
	return a.Unmap(), nil
}

// runTour checks the sides' configs, picks the backend for target (the
// address the tour is about), makes the sessions and hands them to the
// TUI or the plain runner.
func runTour(ctx context.Context, o options, c console, target netip.Addr, cfgs ...steps.Config) (err error) {
	for _, cfg := range cfgs {
		if err := cfg.Validate(); err != nil {
			return configUsage(err)
		}
	}
	wire, prov, why, err := openWire(o, target)
	if err != nil {
		return err
	}
	defer func() {
		if werr := wire.finish(); werr != nil && err == nil {
			err = werr // names --pcap and the path
		}
	}()
	rec, err := openRecord(o)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := rec.finish(); rerr != nil && err == nil {
			err = rerr
		}
	}()
	sessions, err := newSessions(o, cfgs, prov, why, rec)
	if err != nil {
		return err
	}
	if err := rec.begin(prov, sessions); err != nil {
		return err
	}
	err = withRoomPlan(o, sessions, present(ctx, o, c, sessions))
	recordProgress(c, o.lang, sessions)
	return err
}

// openWire opens --pcap, picks the backend and starts its capture; an
// output that cannot be written is refused here, before the first step.
func openWire(o options, target netip.Addr) (*wireOut, verbs.Provider, text.Text, error) {
	if err := distinctOutputs(map[string]string{"--pcap": o.pcap, "--record": o.record}); err != nil {
		return nil, nil, text.Text{}, err
	}
	wire, pcap, err := openPcap(o.pcap)
	if err != nil {
		return nil, nil, text.Text{}, err
	}
	prov, why, err := chooseBackend(o, target, pcap)
	if err == nil {
		err = wire.start(prov, pcap, uint16(o.port))
	}
	if err == nil {
		err = wire.headerWritten()
	}
	if err != nil {
		wire.finish()
		return nil, nil, text.Text{}, err
	}
	return wire, prov, why, nil
}

// newSessions makes one session per config on prov, reporting to rec;
// two are the demo's sides, linked so each recording keeps both states.
func newSessions(o options, cfgs []steps.Config, prov verbs.Provider, why text.Text, rec *recordOut) ([]steps.Runner, error) {
	interactive := stdinIsTerminal() && stdoutIsTerminal()
	var sessions []steps.Runner
	for _, cfg := range cfgs {
		cfg.Provider, cfg.BackendWhy = prov, why
		// A person drives the tour: waits on a live peer never time out.
		cfg.Interactive = interactive && !o.auto
		rec.attach(&cfg)
		s, err := steps.NewSession(cfg)
		if err != nil {
			return nil, err
		}
		if err := checkPredict(o, s); err != nil {
			return nil, err
		}
		if o.auto {
			s.SkipPrediction() // --auto asks nothing, in the TUI as in plain mode
		}
		sessions = append(sessions, s)
	}
	if err := checkPauseAt(o.pauseAt, sessions); err != nil {
		return nil, err
	}
	if len(sessions) == 2 {
		steps.LinkDemo(sessions[0], sessions[1])
	}
	return sessions, nil
}

// present shows the sessions (live or replayed) in the TUI or, with
// --plain or without a terminal, as text.
func present(ctx context.Context, o options, c console, sessions []steps.Runner) error {
	interactive := stdinIsTerminal() && stdoutIsTerminal()
	if !o.plain && interactive {
		return runTUI(ctx, o, sessions)
	}
	if why := o.plainWhy.In(o.lang.Primary()); why != "" && interactive {
		fmt.Fprintf(c.stderr, "rdmatour: %s\n", why)
	}
	p := plain.New(plain.Options{Out: termtext.NewGuard(c.stdout), Lang: o.lang, Docs: docs.Page,
		Explain: !o.brief, PauseAt: string(o.pauseAt), Stdin: c.stdin, Prompt: interactive && !o.auto})
	if s, live := sessions[0].(*steps.Session); live && len(sessions) == 1 && s.Config().Role == steps.Server {
		s.OnTurnAway(p.TurnedAway)
	}
	if len(sessions) == 2 {
		return p.RunDemo(ctx, sessions[0], sessions[1])
	}
	return p.Run(ctx, sessions[0])
}

// finish reports how a tour ended and returns the exit status (see
// exitStatusHelp).
func (c console) finish(o options, err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(c.stderr, "rdmatour: %s\n", ue.in(o.lang))
		return 2
	case errors.As(err, new(*replayError)):
		fmt.Fprintf(c.stderr, "rdmatour: %v\n", err)
		return 1
	case errors.Is(err, context.Canceled):
		msg := text.Text{EN: "rdmatour: interrupted; everything was released", ZH: "rdmatour：已中断；所有资源都已释放"}
		if o.cmd == cmdReplay { // a replay set nothing up
			msg = text.Text{EN: "rdmatour: replay interrupted", ZH: "rdmatour：回放已中断"}
		}
		fmt.Fprintln(c.stderr, msg.In(o.lang.Primary()))
		return 130
	}
	fmt.Fprintf(c.stderr, "rdmatour: %s\n", steps.ExplainIn(err, o.lang.Primary()))
	return 1
}

// resolveHost turns the client's SERVER (an IPv4/IPv6 literal or a host
// name) into one address, preferring IPv4 like the seed's AF_INET lookup.
// A name that does not resolve is a usage error: the learner mistyped it.
func resolveHost(host string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap(), nil
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return netip.Addr{}, usagef("cannot resolve %q: not an IP address and no such host name; check the spelling, or give the server's IP address", host)
	}
	for _, ip := range ips {
		if v4 := ip.To4(); v4 != nil {
			a, _ := netip.AddrFromSlice(v4)
			return a, nil
		}
	}
	a, _ := netip.AddrFromSlice(ips[0])
	return a, nil
}

func stdinIsTerminal() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func stdoutIsTerminal() bool {
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// lessonsByTopic is the lessons grouped by topic, in the order each
// topic first comes; it prints each topic's heading as its first lesson
// is reached, through the returned sequence.
func lessonsByTopic(out io.Writer, one text.Lang) iter.Seq[steps.Lesson] {
	var topics []text.Text
	groups := map[string][]steps.Lesson{}
	for _, l := range steps.Lessons() {
		if _, seen := groups[l.Topic.EN]; !seen {
			topics = append(topics, l.Topic)
		}
		groups[l.Topic.EN] = append(groups[l.Topic.EN], l)
	}
	return func(yield func(steps.Lesson) bool) {
		for _, topic := range topics {
			fmt.Fprintf(out, "\n%s\n", topic.In(one))
			for _, l := range groups[topic.EN] {
				if !yield(l) {
					return
				}
			}
		}
	}
}

// listLessons prints every lesson, by topic, with its one-line summary.
func listLessons(out io.Writer, lang text.Lang) {
	one := lang.Primary()
	fmt.Fprintln(out, text.Text{EN: "Lessons: the tour with one deliberate mistake; run both sides with --lesson NAME", ZH: "课程：故意犯一个错的完整教程；两端都加 --lesson NAME 运行"}.In(one))
	for l := range lessonsByTopic(out, one) {
		title := l.Title.In(one)
		if l.Tour != steps.TourWrite {
			title += text.Text{EN: " (the " + l.Tour.String() + " tour)", ZH: "（" + l.Tour.String() + " 教程）"}.In(one)
		}
		fmt.Fprintf(out, "\n  %-20s %s\n", l.Name, title)
		fmt.Fprintf(out, "  %-20s %s\n", "", l.Summary.In(one))
		if lang == text.Both {
			fmt.Fprintf(out, "  %-20s %s — %s\n", "", l.Title.ZH, l.Summary.ZH)
		}
		if p := l.Preset(); len(p) > 0 {
			fmt.Fprintf(out, "  %-20s = --edit %s\n", "", strings.Join(p.Strings(), " --edit "))
		}
	}
	fmt.Fprintln(out, "\n  e.g. rdmatour demo --lesson bad-rkey")
}
