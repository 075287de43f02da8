package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/doctor"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// command is a subcommand of rdmatour.
type command string

const (
	cmdServer  command = "server"
	cmdClient  command = "client"
	cmdDemo    command = "demo"
	cmdLessons command = "lessons"
	cmdDevices command = "devices"
	cmdDoctor  command = "doctor"
	cmdVersion command = "version"
	cmdReplay  command = "replay"
	cmdEdits   command = "edits"
)

// runsTour says the command runs a tour (and takes the tour's flags).
func (c command) runsTour() bool { return c == cmdServer || c == cmdClient || c == cmdDemo }

// options is everything a subcommand was asked to do.
type options struct {
	cmd     command
	lang    text.Lang
	backend backend
	nic     sim.Profile // --nic: the simulated NIC's profile
	plain   bool
	// plainWhy says why plain mode was chosen for the learner, who did
	// not ask for it (TERM=dumb); empty when --plain asked.
	plainWhy text.Text
	auto     bool
	brief    bool      // plain mode without the explanation pages
	pauseAt  pauseStep // plain runner: stop before this step ID until Enter

	// What the tour does; config turns these into a steps.Config.
	port    port
	bind    string // server and demo: local address ("" = all / loopback)
	server  string // client: the server's address or host name
	src     string // client: local source address
	notify  steps.Notify
	tour    steps.TourKind // --tour (zero value: write)
	track   steps.Track
	compl   steps.Completion // --completion
	lesson  *steps.Lesson    // nil: the plain tour
	edits   steps.Edits      // --edit, repeatable (edits.go)
	editsOf string           // edits: the step whose fields to list ("" = which steps)
	timeout duration
	wait    duration // server: how long to wait for a client (0 = forever)
	message string
	msgSize byteCount  // client and demo: --message-size (0 = the message as it is)
	rnr     rnrRetry   // rnr_retry_count for connect/accept
	pcap    string     // write the connection's RoCEv2 frames to this file
	wire    wireFaults // --wire: packets the simulated NIC loses, doubles or holds back
	record  string     // write the session to this file (--record)
	replay  []string   // replay: the recorded files (one side, or server + client)

	workshopOptions // server --workshop (workshop.go)
}

// workshopOptions are server --workshop's: serve a whole room at once.
type workshopOptions struct {
	workshop     bool
	maxAttendees int
	idleLimit    duration
	stuckAfter   duration
	results      string // --results: the room's results as CSV, and JSON lines beside it
	srq          bool   // --srq: one shared receive queue per device for the room

	// The attendee's side (client): what a room calls them, their
	// answer to the lesson's question (1-based; 0: ask), and whether
	// they chose the tour or lesson themselves (else they follow the
	// room's plan).
	name      string
	predict   int
	choseTour bool
}

// usageError is a mistake on the command line: exit status 2. msg has
// no Chinese where the words come from elsewhere (a flag parser's).
type usageError struct{ msg text.Text }

func (e *usageError) Error() string { return e.msg.EN }

// in is the message as --lang asks (English where there is no Chinese);
// both: the English, then the Chinese on a line of its own.
func (e *usageError) in(lang text.Lang) string {
	if lang == text.Both && e.msg.ZH != "" {
		return e.msg.EN + "\nrdmatour：" + e.msg.ZH
	}
	return e.msg.In(lang)
}

func usagef(format string, args ...any) error {
	return &usageError{msg: text.Same(fmt.Sprintf(format, args...))}
}

// usageText is a usage error in both languages.
func usageText(msg text.Text) error { return &usageError{msg: msg} }

// configUsage is a steps.Config.Validate error as a usage error, in both
// languages where it has them.
func configUsage(err error) error {
	var ce *steps.ConfigError
	if errors.As(err, &ce) {
		return &usageError{msg: ce.Reason}
	}
	return usagef("%v", err)
}

const exitStatusHelp = `Exit status: 0 the tour completed; 1 a step failed (the message says why);
2 a mistake on the command line; 130 interrupted (Ctrl-C, or q before the end).
`

const mainUsage = `rdmatour — learn RDMA by running it, one verbs call per keypress

Usage:
  rdmatour server [PORT] [flags]                     listen and wait for a client
  rdmatour server --workshop [flags]                 serve a whole class at once (a roster)
  rdmatour client SERVER [PORT] [SRC_IP] [NOTIFY] [flags]
  rdmatour demo [flags]                              both sides in one terminal
  rdmatour lessons                                   list the lessons (--lesson NAME)
  rdmatour edits [STEP]                              what --edit STEP.FIELD=VALUE can change
  rdmatour devices                                   list RDMA devices
  rdmatour doctor                                    check this machine's RDMA setup
  rdmatour export-c server|client [flags]            write the tour as one C program
  rdmatour exercise [COMMAND NAME] [flags]           C programs to fix or fill in, checked on RDMA
  rdmatour progress                                  your tours, lessons and exercises: done, next
  rdmatour review                                    two predictions you got wrong (or made longest ago), asked again
  rdmatour replay FILE [FILE2] [flags]               replay a --record file (no device, no peer)
  rdmatour pcap FILE [--tour TOUR] [--lang L]        read a RoCEv2 capture (tcpdump, --pcap) packet by packet
  rdmatour explain CODE [--lang L]                   what an errno, wc.status, CM event/status or NAK means
  rdmatour --version

Run "rdmatour COMMAND --help" for the flags of a command. Pages for pcap and
explain: docs/en/guide-pcap.md, docs/en/guide-explain.md (docs/zh/ in Chinese).
The seed program's forms work too:
  rdmatour server 7471
  rdmatour client 10.0.0.1 7471 [client_src_ip] [send|doorbell]

` + exitStatusHelp

// synopsis is the first line of each command's --help.
func (c command) synopsis() string {
	switch c {
	case cmdServer:
		return "rdmatour server [PORT] [flags]"
	case cmdClient:
		return "rdmatour client SERVER [PORT] [SRC_IP] [send|doorbell|imm] [flags]"
	case cmdReplay:
		return "rdmatour replay FILE [FILE2] [flags]   (FILE2: the other side, replayed as the demo)"
	}
	return "rdmatour " + string(c) + " [flags]"
}

// parseArgs parses argv (without the program name). It never exits; help
// goes to out and is reported as flag.ErrHelp.
func parseArgs(args []string, getenv func(string) string, out io.Writer) (options, error) {
	o := options{port: steps.DefaultPort, lang: text.LangFromEnv(getenv), backend: backendAuto,
		timeout: duration(steps.DefaultTimeout), message: steps.DefaultMessage}
	cmd, err := parseCommand(args, out)
	if err != nil || cmd == cmdVersion {
		o.cmd = cmd
		return o, err
	}
	o.cmd = cmd
	fs := o.flagSet()
	flags, positional, err := splitArgs(fs, args[1:])
	if err != nil {
		return o, err
	}
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			o.printUsage(fs, out)
			return o, err
		}
		return o, usagef("%v (\"rdmatour %s --help\" lists the flags)", err, o.cmd)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := o.takePositionals(append(positional, fs.Args()...), set); err != nil {
		return o, err
	}
	if err := o.crossCheck(set); err != nil {
		return o, err
	}
	return o, nil
}

// parseCommand reads the first argument: a subcommand, help or version.
func parseCommand(args []string, out io.Writer) (command, error) {
	if len(args) == 0 {
		fmt.Fprint(out, mainUsage)
		return "", usagef("no command given")
	}
	switch c := command(args[0]); c {
	case "-h", "--help", "help":
		fmt.Fprint(out, mainUsage)
		return "", flag.ErrHelp
	case "-v", "--version", "version":
		return cmdVersion, nil
	case cmdServer, cmdClient, cmdDemo, cmdDevices, cmdDoctor, cmdLessons, cmdReplay, cmdEdits:
		return c, nil
	}
	fmt.Fprint(out, mainUsage)
	return "", usagef("unknown command %q", args[0])
}

// flagSet declares the flags o.cmd takes, each writing into o.
func (o *options) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("rdmatour "+string(o.cmd), flag.ContinueOnError)
	// A mistake gets one line (parseArgs), not the whole flag list.
	fs.SetOutput(io.Discard)
	if o.cmd.runsTour() {
		o.tourFlags(fs)
	}
	switch o.cmd {
	case cmdLessons, cmdEdits:
		fs.Var(flagOf(&o.lang, text.ParseLang), "lang", "`LANG`: en | zh | both (LC_ALL, LC_MESSAGES or LANG picks the default)")
	case cmdServer:
		fs.StringVar(&o.bind, "bind", "", "local `ADDR` to listen on (default: all)")
		fs.Var(flagOf(&o.wait, parseDuration), "wait-client", "give up if no client connects within `DURATION` (0 = wait forever)")
		workshopFlags(fs, o)
	case cmdClient:
		fs.StringVar(&o.src, "src", "", "local source `ADDR` (the seed's client_src_ip)")
		o.messageFlags(fs)
		attendeeFlags(fs, o)
	case cmdDemo:
		o.messageFlags(fs)
		fs.StringVar(&o.bind, "bind", "", "the local `ADDR` both sides use (default 127.0.0.1; with real RDMA, an address on the RDMA device)")
	case cmdReplay:
		o.replayFlags(fs)
	}
	return fs
}

// messageFlags are what the client writes: client and demo.
func (o *options) messageFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.message, "message", steps.DefaultMessage, "`TEXT` to RDMA WRITE into the server's buffer")
	fs.Var(flagOf(&o.msgSize, parseByteCount), "message-size", fmt.Sprintf("pad the message with spaces so the WRITE carries `N` bytes, NUL included (at most the %d-byte buffer; above the path MTU it goes out as FIRST/MIDDLE/LAST packets)", steps.BufSize))
}

// printUsage is o.cmd's --help.
func (o *options) printUsage(fs *flag.FlagSet, out io.Writer) {
	fmt.Fprintf(out, "Usage: %s\n\n", o.cmd.synopsis())
	fs.SetOutput(out)
	fs.PrintDefaults()
	if o.cmd.runsTour() {
		fmt.Fprint(out, "\n"+exitStatusHelp)
	}
}

// tourFlags are the flags server, client and demo share.
func (o *options) tourFlags(fs *flag.FlagSet) {
	fs.Var(flagOf(&o.port, parsePort), "port", "rdma_cm `PORT`, 1-65535")
	fs.Var(flagOf(&o.notify, steps.ParseNotify), "notify", "how the client signals completion, `MODE`: send | doorbell | imm")
	fs.Var(flagOf(&o.tour, steps.ParseTourKind), "tour", "which tour, `TOUR`: "+strings.Join(steps.TourNames(), " | ")+"; give it to both sides")
	fs.Var(flagOf(&o.lang, text.ParseLang), "lang", "explanations in `LANG`: en | zh | both (LC_ALL, LC_MESSAGES or LANG picks the default)")
	fs.Var(flagOf(&o.backend, parseBackend), "backend", "the verbs `BACKEND`: auto (real RDMA if a device serves the address, else the simulated NIC) | rdma | sim")
	fs.Var(flagOf(&o.nic, sim.ParseProfile), "nic", "with --backend sim, the NIC it plays, `PROFILE`: rxe (as measured) | strict (lkey ≠ rkey, max_inline_data as asked up to 64, max_qp_rd_atom 4, RoCE v1 GID at index 0 and v2 at 1)")
	fs.BoolVar(&o.plain, "plain", false, "plain text instead of the full-screen UI")
	fs.BoolVar(&o.auto, "auto", false, "run every step without waiting for Enter (in the full-screen UI too: the steps run one after another, visibly)")
	fs.BoolVar(&o.brief, "brief", false, "plain mode: leave out the explanation pages (C calls and results only)")
	fs.Var(flagOf(&o.timeout, parseDuration), "timeout", "with --auto (or input that is not a terminal): how long any wait on the peer may take (`DURATION`, positive); a person's tour waits as long as the peer is alive")
	fs.Var(flagOf(&o.pauseAt, parsePauseStep), "pause-at", "plain mode: stop before the step with this `ID` until Enter (e.g. accept)")
	fs.Var(flagOf(&o.lesson, steps.ParseLesson), "lesson", "run a lesson: the tour with one deliberate mistake; `NAME` as \"rdmatour lessons\" lists them; give it to both sides")
	fs.Var(flagOf(&o.track, steps.ParseTrack), "track", "how the QP is brought up, `TRACK`: cm (rdma_create_qp; librdmacm moves it) | manual (ibv_create_qp + ibv_modify_qp, one transition per step)")
	fs.Var(flagOf(&o.wire, parseWireFaults), "wire", "simulated NIC: make the wire misbehave for this side's packets, `FAULTS` separated by spaces: drop=N[,M…] loss=P% seed=S dup=N delay=N:DURATION reorder=N (packets numbered from 1 as this side sends them; server:TERM or client:TERM picks a side in the demo)")
	fs.Var(flagOf(&o.compl, steps.ParseCompletion), "completion", "how this side waits for completions, `MODE`: poll (spin on ibv_poll_cq) | event (a completion channel: ibv_req_notify_cq, ibv_get_cq_event, ibv_ack_cq_events); RC tours")
	fs.StringVar(&o.pcap, "pcap", "", "write this side's RoCEv2 packets to `FILE` for Wireshark (simulated NIC: the frames it would send; real device: a capture, needs CAP_NET_RAW)")
	fs.Var(flagOf(&o.rnr, parseRNRRetry), "rnr-retry", "rnr_retry_count for rdma_connect/rdma_accept, `N` in 0..7 (7 = retry forever)")
	fs.Var(editList{&o.edits}, "edit", "change one argument of a call before it runs, `STEP.FIELD=VALUE` (repeatable; \"rdmatour edits STEP\" lists the fields), e.g. post-write.rkey=+1")
	fs.StringVar(&o.record, "record", "", "write the session (every step's C call, results and state, the timeline, the packets) to `FILE` as JSON lines, for \"rdmatour replay\"")
}

// crossCheck refuses combinations no single flag can judge, then lets
// steps.Config.Validate judge the values both sides share.
func (o *options) crossCheck(set map[string]bool) error {
	if set["message"] && o.message == "" {
		return usageText(text.Text{EN: fmt.Sprintf("--message is empty: give the text to write (leave the flag out for the default, %q)", steps.DefaultMessage), ZH: fmt.Sprintf("--message 是空的：请给出要写的文字（不加这个参数则用默认的 %q）", steps.DefaultMessage)})
	}
	if err := messageSent(set["message"], o.tour, o.lesson); err != nil {
		return err
	}
	if set["timeout"] && o.timeout == 0 {
		return usageText(text.Text{EN: "--timeout 0s: must be positive (how long a wait on the peer may take, e.g. 30s)", ZH: "--timeout 0s：必须为正数（等待对端最多多久，例如 30s）"})
	}
	if err := o.checkWorkshop(set); err != nil {
		return err
	}
	if err := o.checkNIC(); err != nil {
		return err
	}
	o.choseTour = set["tour"] || set["lesson"]
	if err := steps.CheckName(o.name); err != nil {
		return configUsage(err)
	}
	if o.lesson != nil {
		if set["notify"] && o.notify != o.lesson.Notify {
			return usageText(text.Text{EN: fmt.Sprintf("lesson %s needs --notify %s", o.lesson, o.lesson.Notify), ZH: fmt.Sprintf("课程 %s 需要 --notify %s", o.lesson, o.lesson.Notify)})
		}
		o.notify = o.lesson.Notify
	}
	if !o.cmd.runsTour() {
		return nil
	}
	// The role needs no address here: the client's server is checked once
	// it is resolved (tourConfigs).
	if err := o.config(steps.Server).Validate(); err != nil {
		return configUsage(err)
	}
	return o.checkEdits()
}

// config is the steps.Config for role, without addresses or a backend.
func (o *options) config(role steps.Role) steps.Config {
	return steps.Config{Role: role, Notify: o.notify, Track: o.track, Completion: o.compl, Message: o.message, MessageSize: int(o.msgSize),
		Timeout: time.Duration(o.timeout), AcceptTimeout: time.Duration(o.wait),
		Lesson: o.lesson, RNRRetry: uint8(o.rnr), Tour: o.tour, Edits: o.edits, Wire: o.wire.of(role, o.cmd), MemlockLimit: doctor.MemlockLimit(),
		Name: o.attendeeName(role), FollowsRoom: !o.choseTour}
}
