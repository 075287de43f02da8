// Command rdmatour teaches RDMA by running it: a live RDMA connection
// between two terminals, one real verbs call per keypress, next to an
// explanation of each call and the state it changed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rdmatour/rdmatour/termtext"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	// SIGHUP is a closed terminal or a dropped ssh: the instructor's
	// workshop must still tear every attendee down and print its roster,
	// as for Ctrl-C (it used to end at once, with neither).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	// Error lines may quote a peer's bytes: nothing reaches the terminal
	// unescaped.
	stderr = termtext.NewGuard(stderr)
	if len(args) > 0 && args[0] == "pcap" {
		return runPcap(args[1:], stdin, stdout, stderr, getenv)
	}
	if len(args) > 0 && args[0] == "explain" {
		return runExplain(args[1:], stdout, stderr, getenv)
	}
	if len(args) > 0 && args[0] == "export-c" {
		return runExportC(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && (args[0] == "exercise" || args[0] == "progress" || args[0] == "review") { // their own flags
		c := console{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
		switch args[0] {
		case "progress":
			return runProgress(args[1:], c)
		case "review":
			return runReview(ctx, args[1:], c)
		}
		return runExercise(ctx, args[1:], c)
	}
	o, err := parseArgs(args, getenv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "rdmatour: %s\n", ue.in(o.lang))
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmatour: %v\n", err)
		return 2
	}
	if !o.plain {
		o.plain, o.plainWhy = cursorless(getenv("TERM"))
	}
	return runCommand(ctx, o, console{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv})
}
