package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// options is everything a subcommand was asked to do.
type options struct {
	cmd     string // server | client | demo | devices | doctor
	port    int
	bind    string
	server  string
	src     string
	notify  steps.Notify
	lang    string // en | zh | both
	backend string // auto | rdma | sim
	plain   bool
	auto    bool
	timeout time.Duration
	wait    time.Duration // server: how long to wait for a client (0 = forever)
	message string
	pauseAt string // plain runner: stop before this step ID until Enter
	lesson  string // the deliberate mistake to make ("" = plain tour)
	track   string // cm | manual
	brief   bool   // plain mode without the explanation pages
	rnr     int    // rnr_retry_count for connect/accept
}

// usageError is a mistake on the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

const mainUsage = `rdmatour — learn RDMA by running it, one verbs call per keypress

Usage:
  rdmatour server [PORT] [flags]                     listen and wait for a client
  rdmatour client SERVER [PORT] [SRC_IP] [NOTIFY] [flags]
  rdmatour demo [flags]                              both sides in one terminal
  rdmatour lessons                                   list the lessons (--lesson NAME)
  rdmatour devices                                   list RDMA devices
  rdmatour doctor                                    check this machine's RDMA setup
  rdmatour --version

Run "rdmatour COMMAND --help" for the flags of a command.
The seed program's forms work too:
  rdmatour server 7471
  rdmatour client 10.0.0.1 7471 [client_src_ip] [send|doorbell]
`

// defaultLang picks zh when the locale says Chinese.
func defaultLang(getenv func(string) string) string {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if val := getenv(v); val != "" {
			if strings.HasPrefix(strings.ToLower(val), "zh") {
				return "zh"
			}
			return "en"
		}
	}
	return "en"
}

// parseArgs parses argv (without the program name). It never exits; help
// goes to out and is reported as flag.ErrHelp.
func parseArgs(args []string, getenv func(string) string, out io.Writer) (options, error) {
	o := options{port: steps.DefaultPort, lang: defaultLang(getenv), backend: "auto", timeout: 30 * time.Second}
	if len(args) == 0 {
		fmt.Fprint(out, mainUsage)
		return o, usagef("no command given")
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(out, mainUsage)
		return o, flag.ErrHelp
	case "-v", "--version", "version":
		o.cmd = "version"
		return o, nil
	case "server", "client", "demo", "devices", "doctor", "lessons":
		o.cmd = args[0]
	default:
		fmt.Fprint(out, mainUsage)
		return o, usagef("unknown command %q", args[0])
	}

	fs := flag.NewFlagSet("rdmatour "+o.cmd, flag.ContinueOnError)
	fs.SetOutput(out)
	notify := "send"
	lang := o.lang
	portSet := -1
	if o.cmd == "server" || o.cmd == "client" || o.cmd == "demo" {
		fs.IntVar(&portSet, "port", -1, "rdma_cm port (default 7471)")
		fs.StringVar(&notify, "notify", "send", "how the client signals completion: send | doorbell | imm")
		fs.StringVar(&lang, "lang", o.lang, "explanations in en | zh | both (default from LANG)")
		fs.StringVar(&o.backend, "backend", "auto", "auto | rdma | sim (simulated NIC)")
		fs.BoolVar(&o.plain, "plain", false, "plain text instead of the full-screen UI")
		fs.BoolVar(&o.auto, "auto", false, "run every step without waiting for Enter")
		fs.BoolVar(&o.brief, "brief", false, "plain mode: leave out the explanation pages (C calls and results only)")
		fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "how long any wait on the peer may take")
		fs.StringVar(&o.pauseAt, "pause-at", "", "plain mode: stop before the step with this ID until Enter (e.g. accept)")
		fs.StringVar(&o.lesson, "lesson", "", "run a lesson: the tour with one deliberate mistake (see `rdmatour lessons`); give it to both sides")
		fs.StringVar(&o.track, "track", "cm", "how the QP is brought up: cm (rdma_create_qp; librdmacm moves it) | manual (ibv_create_qp + ibv_modify_qp, one transition per step)")
		fs.IntVar(&o.rnr, "rnr-retry", 0, "rnr_retry_count for rdma_connect/rdma_accept, 0..7 (7 = retry forever; the seed uses 0)")
	}
	if o.cmd == "lessons" {
		fs.StringVar(&lang, "lang", o.lang, "en | zh | both")
	}
	switch o.cmd {
	case "server":
		fs.StringVar(&o.bind, "bind", "", "local address to listen on (default: all)")
		fs.DurationVar(&o.wait, "wait-client", 0, "give up if no client connects within this time (0 = wait forever)")
	case "client":
		fs.StringVar(&o.src, "src", "", "local source address (the seed's client_src_ip)")
		fs.StringVar(&o.message, "message", steps.DefaultMessage, "text to RDMA WRITE into the server's buffer")
	case "demo":
		fs.StringVar(&o.message, "message", steps.DefaultMessage, "text to RDMA WRITE into the server's buffer")
		fs.StringVar(&o.bind, "bind", "", "the local address both sides use (default 127.0.0.1; with real RDMA, an address on the RDMA device)")
	}
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage of rdmatour %s:\n", o.cmd)
		fs.PrintDefaults()
	}
	flags, positional, err := splitArgs(fs, args[1:])
	if err != nil {
		return o, err
	}
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, usagef("%v", err)
	}
	if fs.NArg() > 0 {
		positional = append(positional, fs.Args()...)
	}

	switch o.cmd {
	case "server":
		if len(positional) > 1 {
			return o, usagef("server takes at most one positional argument (the port), got %q", positional)
		}
		if len(positional) == 1 {
			if err := setPort(&o, positional[0]); err != nil {
				return o, err
			}
		}
	case "client":
		if len(positional) == 0 {
			return o, usagef("client needs the server's address: rdmatour client SERVER [PORT]")
		}
		if len(positional) > 4 {
			return o, usagef("too many arguments: %q", positional)
		}
		o.server = positional[0]
		if len(positional) >= 2 {
			if err := setPort(&o, positional[1]); err != nil {
				return o, err
			}
		}
		// The seed: argv[4] is a notify mode if it parses as one, else
		// the source address; argv[5] must be a notify mode.
		if len(positional) >= 3 {
			if n, err := steps.ParseNotify(positional[2]); err == nil {
				notify = n.String()
			} else {
				o.src = positional[2]
			}
		}
		if len(positional) == 4 {
			if _, err := steps.ParseNotify(positional[3]); err != nil {
				return o, usagef("unknown notify mode: %s (use send, doorbell or imm)", positional[3])
			}
			notify = positional[3]
		}
	default:
		if len(positional) > 0 {
			return o, usagef("%s takes no arguments, got %q", o.cmd, positional)
		}
	}
	if portSet != -1 {
		if err := setPort(&o, strconv.Itoa(portSet)); err != nil {
			return o, err
		}
	}
	n, err := steps.ParseNotify(notify)
	if err != nil {
		return o, usagef("%v", err)
	}
	o.notify = n
	switch lang {
	case "en", "zh", "both":
		o.lang = lang
	default:
		return o, usagef("unknown language %q: use en, zh or both", lang)
	}
	switch o.backend {
	case "auto", "rdma", "sim":
	default:
		return o, usagef("unknown backend %q: use auto, rdma or sim", o.backend)
	}
	if o.pauseAt != "" && !knownStep(o.pauseAt) {
		return o, usagef("unknown step %q for --pause-at", o.pauseAt)
	}
	if o.lesson != "" {
		l, err := steps.LessonByName(o.lesson)
		if err != nil {
			return o, usagef("%v", err)
		}
		if notifySet(flags) && l.Notify.String() != notify {
			return o, usagef("lesson %s needs --notify %s", l.Name, l.Notify)
		}
	}
	switch o.track {
	case "", steps.TrackCM, steps.TrackManual:
	default:
		return o, usagef("unknown track %q: use cm or manual", o.track)
	}
	if o.track == steps.TrackManual && o.lesson != "" {
		return o, usagef("--track manual and --lesson cannot be combined: the lessons run on the cm track")
	}
	if o.rnr < 0 || o.rnr > 7 {
		return o, usagef("--rnr-retry %d is out of range: 0..7 (7 = retry forever)", o.rnr)
	}
	if o.timeout <= 0 {
		return o, usagef("--timeout must be positive")
	}
	if len(o.message)+1 > steps.BufSize {
		return o, usagef("--message is %d bytes; at most %d fit the buffer", len(o.message), steps.BufSize-1)
	}
	return o, nil
}

func setPort(o *options, s string) error {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return usagef("port %q is out of range: use 1-65535", s)
	}
	o.port = p
	return nil
}

// splitArgs separates flags (with their values) from positional arguments,
// so flags may come before, between or after positionals, as users type
// them ("rdmatour client 10.0.0.1 --notify imm").
func splitArgs(fs *flag.FlagSet, args []string) (flags, positional []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return flags, append(positional, args[i+1:]...), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // fs.Parse reports it
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			continue
		}
		if i+1 >= len(args) {
			return nil, nil, usagef("flag %s needs a value", a)
		}
		i++
		flags = append(flags, args[i])
	}
	return flags, positional, nil
}

// resolveHost turns the client's SERVER (an IPv4/IPv6 literal or a host
// name) into one address, preferring IPv4 like the seed's AF_INET lookup.
func resolveHost(host string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap(), nil
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return netip.Addr{}, fmt.Errorf("cannot resolve %q: not an IP address and no such host name", host)
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

func knownStep(id string) bool {
	for _, known := range steps.AllStepIDs() {
		if known == id {
			return true
		}
	}
	return false
}

// notifySet reports whether --notify was given explicitly.
func notifySet(flags []string) bool {
	for _, f := range flags {
		name := strings.SplitN(strings.TrimLeft(f, "-"), "=", 2)[0]
		if name == "notify" {
			return true
		}
	}
	return false
}
