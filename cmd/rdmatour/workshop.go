package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
	"github.com/rdmatour/rdmatour/workshop"
)

// `rdmatour server --workshop`: one server for a whole room (workshop.Room).

// workshopFlags are the server's workshop flags.
func workshopFlags(fs *flag.FlagSet, o *options) {
	fs.BoolVar(&o.workshop, "workshop", false, "serve every attendee at once (a workshop room) instead of one client, all on the --tour given (write, read or atomic: one counter the room shares); Ctrl-C ends it and prints the roster")
	fs.IntVar(&o.maxAttendees, "max-attendees", workshop.DefaultMaxAttendees, "--workshop: at most `N` attendees connected at once; the next is turned away")
	o.idleLimit = duration(workshop.DefaultIdleLimit)
	fs.Var(flagOf(&o.idleLimit, parseDuration), "idle-limit", "--workshop: drop an attendee whose next event does not come within `DURATION`")
	o.stuckAfter = duration(workshop.DefaultStuckAfter)
	fs.Var(flagOf(&o.stuckAfter, parseDuration), "stuck-after", "--workshop: mark an attendee stuck on the roster when nothing happened for `DURATION` (it only marks; --idle-limit drops)")
	fs.BoolVar(&o.srq, "srq", false, "--workshop: post the room's RECVs to one shared receive queue (ibv_create_srq) that every attendee's QP takes them from; the roster shows its fill level (write tour)")
	fs.StringVar(&o.results, "results", "", "--workshop: write the room's results to `FILE` (CSV; JSON lines beside it, FILE's name with .jsonl) when the workshop ends, and when s is pressed on the roster")
}

// checkWorkshop refuses workshop flags that cannot apply.
func (o *options) checkWorkshop(set map[string]bool) error {
	if (set["max-attendees"] || set["idle-limit"] || set["stuck-after"] || set["results"] || set["srq"]) && !o.workshop {
		return usagef("--max-attendees, --idle-limit, --stuck-after, --results and --srq go with --workshop")
	}
	if o.srq && o.tour != steps.TourWrite {
		return usagef("--srq runs the write tour, not --tour %s: the attendees' SENDs are what the shared receive queue takes", o.tour)
	}
	if !o.workshop {
		return nil
	}
	switch {
	case o.maxAttendees < 1:
		return usagef("--max-attendees %d: give at least 1", o.maxAttendees)
	case o.idleLimit <= 0:
		return usagef("--idle-limit %v: must be positive (e.g. 15m)", o.idleLimit)
	case o.stuckAfter <= 0:
		return usagef("--stuck-after %v: must be positive (e.g. 2m)", o.stuckAfter)
	case o.lesson != nil && set["tour"] && o.tour != o.lesson.Tour:
		return usagef("--lesson %s runs on the %s tour: give --tour %s, or leave --tour out (the lessons of --tour %s are %v)", o.lesson, o.lesson.Tour, o.lesson.Tour, o.tour, workshop.LessonsOf(o.tour))
	case set["track"] || set["notify"] || set["pcap"] || set["pause-at"] || set["wait-client"]:
		return usagef("--workshop serves each attendee's tour as it comes: --track, --notify, --pcap, --pause-at and --wait-client are the attendees' choice, not the server's")
	case set["timeout"]:
		return usagef("--workshop waits on each attendee for --idle-limit, not --timeout")
	}
	if o.lesson != nil {
		o.tour = o.lesson.Tour // the room runs the lesson's tour
	}
	if tour, ok := steps.TourOf(o.tour); ok && tour.Workshop() != nil {
		return usagef("--workshop --tour %s is not supported: a workshop room serves RC connections, and the ud tour's datagrams use another port space (RDMA_PS_UDP); run the ud tour as one server and one client, or give the room --tour write, read or atomic", o.tour)
	}
	return nil
}

// workshopProviders are the backends the room listens on: with --backend
// auto the real device when there is one and the simulated NIC always,
// so laptops without RDMA can join too.
func workshopProviders(o options) ([]verbs.Provider, text.Text, error) {
	switch o.backend {
	case backendSim:
		return []verbs.Provider{sim.New(sim.Options{})}, whySim, nil
	case backendRDMA:
		p, why, err := chooseBackend(o, netip.Addr{}, nil)
		if err != nil {
			return nil, text.Text{}, err
		}
		return []verbs.Provider{p}, why, nil
	}
	if p, err := openReal(netip.Addr{}); err == nil {
		return []verbs.Provider{p, sim.New(sim.Options{})}, text.Text{EN: "real verbs and the simulated NIC, side by side", ZH: "真实 verbs 与模拟网卡并用"}, nil
	} else {
		return []verbs.Provider{sim.New(sim.Options{})}, text.Text{EN: "no real RDMA here (" + err.Error() + "): the simulated NIC only",
			ZH: "这里没有可用的真实 RDMA（" + err.Error() + "）：只有模拟网卡"}, nil
	}
}

// runWorkshop serves the room until ctx ends (Ctrl-C), then tears it down
// and prints the roster.
func runWorkshop(ctx context.Context, o options, c console) error {
	out := termtext.NewGuard(c.stdout)
	results, err := newResultsFiles(o.results)
	if err != nil {
		return err
	}
	screen := !o.plain && stdinIsTerminal() && stdoutIsTerminal()
	var mu sync.Mutex // OnEvent calls are serialised; the header is not
	onEvent := func(ev workshop.Event) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(out, eventLine(ev, o.lang))
	}
	if screen {
		onEvent = nil // the roster shows them
	}
	room, cfg, err := openRoom(o, onEvent)
	if err != nil {
		return err
	}
	for _, p := range cfg.Providers {
		// Real attendees' packets in the wire pane, when this process may
		// capture (CAP_NET_RAW); without, the pane says why.
		w := &wireOut{}
		if w.start(p, nil, uint16(o.port)) == nil {
			defer w.finish()
		}
	}
	mu.Lock()
	announceRoom(out, o, room, cfg.BackendWhy)
	mu.Unlock()
	save := saveResults(room, o, results)
	if screen {
		if err := tui.RunWorkshop(ctx, tui.WorkshopOptions{Room: room, Lang: o.lang, SaveResults: save, Join: room.JoinCommands()}); err != nil {
			room.Close()
			return err
		}
	} else {
		instructorCommands(ctx, c.stdin, out, &mu, room, saveTo(room, o, save))
	}
	return endRoom(out, room, &mu, results != nil, save)
}

// saveResults saves the room's results where --results says, or says
// that no --results was given.
func saveResults(room *workshop.Room, o options, r *resultsFiles) func() (string, error) {
	return func() (string, error) {
		if r == nil {
			return "", fmt.Errorf("no --results FILE was given: start the workshop with --results results.csv to save the room's results")
		}
		return r.save(room, o.tour)
	}
}

// openRoom opens the room on the backends o asks for. With --backend auto
// a real device that cannot listen there (--bind on an address no RDMA
// device has, say) leaves the room on the simulated NIC alone.
func openRoom(o options, onEvent func(workshop.Event)) (*workshop.Room, workshop.Config, error) {
	addr, err := parseBind(o.bind, netip.IPv4Unspecified())
	if err != nil {
		return nil, workshop.Config{}, err
	}
	provs, why, err := workshopProviders(o)
	if err != nil {
		return nil, workshop.Config{}, err
	}
	cfg := workshop.Config{Providers: provs, BackendWhy: why,
		Bind: netip.AddrPortFrom(addr, uint16(o.port)), MaxAttendees: o.maxAttendees,
		IdleLimit: time.Duration(o.idleLimit), StuckAfter: time.Duration(o.stuckAfter), RNRRetry: uint8(o.rnr), OnEvent: onEvent, Tour: o.tour, SRQ: o.srq, Lesson: o.lesson}
	room, err := workshop.Open(cfg)
	if err != nil && o.backend == backendAuto && len(provs) == 2 {
		cfg.Providers = provs[1:]
		cfg.BackendWhy = text.Text{EN: "the real device could not listen (" + steps.ExplainIn(err, text.EN) + "): the simulated NIC only",
			ZH: "真实设备无法在这里监听（" + steps.ExplainIn(err, text.ZH) + "）：只有模拟网卡"}
		room, err = workshop.Open(cfg)
	}
	return room, cfg, err
}

// announceRoom prints where the room listens and what it runs.
func announceRoom(out io.Writer, o options, room *workshop.Room, why text.Text) {
	fmt.Fprintf(out, "[workshop] listening on %s (%s); %s for every attendee; at most %d attendees, idle limit %v, %v for a handshake; Ctrl-C ends the workshop\n",
		strings.Join(room.Addrs(), " and "), why.EN, planWords(room.Plan()), o.maxAttendees, time.Duration(o.idleLimit), workshop.DefaultHandshakeTimeout)
	for _, join := range room.JoinCommands() {
		fmt.Fprintf(out, "[workshop] attendees join with: %s\n", join.EN)
	}
	if tour, _ := steps.TourOf(o.tour); tour.SharedCounter {
		fmt.Fprintf(out, "[workshop] one shared %d-byte counter per backend, starting at %d: every attendee's FETCH_AND_ADD and CMP_AND_SWP hit it\n", 8, steps.CounterStart)
	}
}

// endRoom tears every attendee down and prints the roster. The room is
// closed before mu is taken: each attendee's last event goes through
// OnEvent, which takes mu.
func endRoom(out io.Writer, room *workshop.Room, mu *sync.Mutex, saving bool, save func() (string, error)) error {
	ended := time.Now()
	cerr := room.Close()
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(out, "[workshop] ended after %v (teardown %v); live objects left = %d\n",
		ended.Sub(room.Opened()).Round(time.Second), time.Since(ended).Round(time.Millisecond), room.Live())
	rows := room.Roster()
	writeRoster(out, rows, room.Counts(), time.Now())
	tally := room.Tally()
	tally.Revealed = true // the summary shows the answers
	if lines := tally.Lines(text.EN); lines != nil {
		fmt.Fprintln(out, strings.Join(lines, "\n"))
	}
	writeMisconceptions(out, workshop.Misconceptions(rows))
	var serr error
	if saving {
		var where string
		if where, serr = save(); serr == nil {
			fmt.Fprintf(out, "[workshop] %s\n", where)
		}
	}
	if cerr != nil {
		return fmt.Errorf("tearing the workshop down: %w", cerr)
	}
	if serr != nil {
		return fmt.Errorf("--results: %w", serr)
	}
	return nil
}

// eventLine is one attendee event, one line in lang (the message is
// escaped: workshop.Row.Message is PeerBytes).
func eventLine(ev workshop.Event, lang text.Lang) string {
	who := "-"
	if ev.Row.N > 0 {
		who = fmt.Sprintf("#%d", ev.Row.N)
	}
	if ev.Row.Name != "" { // escaped already: the attendee's bytes
		who += " " + ev.Row.Name
	}
	return fmt.Sprintf("[workshop] %s %-4s %-21s %-5s %s", ev.Time.Format("15:04:05"), who, ev.Row.Addr, ev.Row.Backend, ev.What.In(lang))
}

// writeRoster prints the roster as a table: the columns of the workshop
// screen (workshop.Columns), two spaces apart, each long message or
// error cut at workshop.PrintedWidth cells.
func writeRoster(w io.Writer, rows []workshop.Row, counts workshop.Counts, now time.Time) {
	fmt.Fprintf(w, "roster: %d done, %d running, %d stuck, %d failed, %d turned away\n",
		counts.Finished, counts.Connected-counts.Stuck, counts.Stuck, counts.Failed, counts.TurnedAway)
	if line := workshop.CounterLine(counts.Counters); line != "" {
		fmt.Fprintf(w, "shared %s (started at %d)\n", line, steps.CounterStart)
	}
	if line := workshop.SRQLine(counts.SRQ); line != "" {
		fmt.Fprintf(w, "%s\n%s\n", line, workshop.SRQPDWarning.EN)
	}
	cols := workshop.Columns()
	fmt.Fprintln(w, strings.TrimRight(workshop.Line(cols, workshop.Heads(cols, text.EN), "  ", 0, termtext.FitAligned), " "))
	for _, r := range rows {
		cells := workshop.Cells(cols, r, now, text.EN)
		for i := range cells {
			cells[i] = termtext.Safe(cells[i])
		}
		fmt.Fprintln(w, workshop.Line(cols, cells, "  ", workshop.PrintedWidth, termtext.FitAligned))
	}
}
