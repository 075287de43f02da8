package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rdmatour/rdmatour/export"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

const exportUsage = `Usage: rdmatour export-c server|client [--tour write|read|atomic|ud] [--notify MODE] [--track TRACK] [--lesson NAME] [--message TEXT] [--message-size N] [--edit STEP.FIELD=VALUE]... [-o FILE]

Writes the tour as one complete C program (to FILE, or to standard output).
Build it with
  gcc -std=c99 -Wall -Werror -o rdmatour-client rdmatour-client.c -libverbs -lrdmacm
(Debian/Ubuntu: apt-get install gcc libibverbs-dev librdmacm-dev; Fedora:
dnf install gcc rdma-core-devel) and run it with the seed's arguments:
  ./rdmatour-server server [PORT]
  ./rdmatour-client client SERVER_IP [PORT] [SRC_IP] [send|doorbell|imm]
It needs an RDMA device (a real NIC, or Soft-RoCE: "rdmatour doctor" sets
it up) and the address of the RDMA interface (127.0.0.1 does not reach rxe).
The other side can be rdmatour on RDMA (not --backend sim: the simulated NIC
speaks TCP), the seed program, or another exported program:
  rdmatour server --backend rdma        ./rdmatour-client client SERVER_IP

`

// exportArgs are export-c's command line.
type exportArgs struct {
	opts export.Options
	out  string // "" = standard output
}

// runExportC is `rdmatour export-c`: it returns the exit status.
func runExportC(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a, err := parseExportArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmatour export-c: %v\n", err)
		return 2
	}
	// The statements come from running the tour on two simulated NICs:
	// nothing here touches a real device.
	prog, err := export.Program(ctx, a.opts, sim.New(sim.Options{}), sim.New(sim.Options{}))
	var bad *steps.ConfigError
	if errors.As(err, &bad) {
		fmt.Fprintf(stderr, "rdmatour export-c: %v\n", bad)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmatour export-c: %s\n", steps.ExplainIn(err, text.EN))
		return 1
	}
	if a.out == "" {
		_, err = io.WriteString(stdout, prog)
	} else {
		err = writeProgram(a.out, prog)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "rdmatour export-c: %s\n", ue.in(text.EN))
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmatour export-c: writing the program: %v\n", err)
		return 1
	}
	// A first-timer learns here what the program needs, before its first
	// run says only "No such device" (ux review item 14).
	cfg := a.opts.Config()
	cfg.Role = a.opts.Role
	fmt.Fprint(stderr, export.FirstRun(cfg, a.out))
	return 0
}

// parseExportArgs reads `server|client` and the flags, in any order.
func parseExportArgs(args []string, stderr io.Writer) (exportArgs, error) {
	var a exportArgs
	fs := flag.NewFlagSet("rdmatour export-c", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, exportUsage); fs.PrintDefaults() }
	notify := fs.String("notify", "send", "how the client signals completion, `MODE`: send | doorbell | imm")
	track := fs.String("track", "cm", "how the QP is brought up, `TRACK`: cm | manual")
	tour := fs.String("tour", "write", "which tour, `TOUR`: "+strings.Join(steps.TourNames(), " | "))
	lesson := fs.String("lesson", "", "the lesson `NAME` (as \"rdmatour lessons\" lists them): the program makes its mistake")
	fs.StringVar(&a.opts.Message, "message", steps.DefaultMessage, "the `TEXT` the client RDMA-WRITEs")
	fs.IntVar(&a.opts.MessageSize, "message-size", 0, "pad the message with spaces so the WRITE carries `N` bytes, NUL included (at most the 4096-byte buffer)")
	fs.StringVar(&a.out, "o", "", "write the program to `FILE` instead of standard output")
	fs.Var(editList{&a.opts.Edits}, "edit", "change one argument of a call, `STEP.FIELD=VALUE` (repeatable; see \"rdmatour edits\"): the program makes the edited call")
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return a, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) != 1 {
		fs.Usage()
		return a, fmt.Errorf("name one side, server or client (got %q)", strings.Join(positional, " "))
	}
	switch positional[0] {
	case "server":
		a.opts.Role = steps.Server
	case "client":
		a.opts.Role = steps.Client
	default:
		return a, fmt.Errorf("unknown side %q: use server or client", positional[0])
	}
	n, err := steps.ParseNotify(*notify)
	if err != nil {
		return a, err
	}
	a.opts.Notify = n
	if a.opts.Track, err = steps.ParseTrack(*track); err != nil {
		return a, err
	}
	if a.opts.Tour, err = steps.ParseTourKind(*tour); err != nil {
		return a, err
	}
	if *lesson != "" {
		if a.opts.Lesson, err = steps.ParseLesson(*lesson); err != nil {
			return a, err
		}
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "message" })
	return a, a.check(given)
}

// check turns away what no single flag can judge: a message for a tour
// that sends none, a lesson on the manual track, an edit of a step the
// exported side does not run.
func (a exportArgs) check(messageGiven bool) error {
	if err := messageSent(messageGiven, a.opts.Tour, a.opts.Lesson); err != nil {
		return err
	}
	if err := a.opts.Validate(); err != nil {
		return err
	}
	return steps.CheckEdits(a.opts.Config(), a.opts.Edits, a.opts.Role)
}

// writeProgram writes the program to path through an outFile: a FIFO that
// nobody reads is refused instead of blocking the open for ever (where
// Ctrl-C could not end it).
func writeProgram(path, prog string) error {
	f, err := openOut("-o", path)
	if err != nil {
		return err
	}
	f.Write([]byte(prog))
	return f.Close()
}
