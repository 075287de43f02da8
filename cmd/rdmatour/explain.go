package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rdmatour/rdmatour/explain"
	"github.com/rdmatour/rdmatour/text"
)

const explainUsage = `Usage: rdmatour explain CODE [--lang en|zh|both]

Says what an RDMA error code means, which field it comes from, and its usual
causes with the lesson that reproduces each. CODE is an errno (ENOMEM, 12), a
wc.status (12, IBV_WC_RETRY_EXC_ERR, "transport retry counter exceeded"), a CM
event or its status (RDMA_CM_EVENT_REJECTED, "status 28", -110), or an AETH
syndrome (0x60, "NAK remote access"). A bare number gets every reading.
Exit status: 0 explained; 1 an unknown code (with the closest names);
2 a mistake on the command line.

`

// runExplain is `rdmatour explain`: it returns the exit status.
func runExplain(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	lang := text.LangFromEnv(getenv)
	fs := flag.NewFlagSet("rdmatour explain", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(flagOf(&lang, text.ParseLang), "lang", "`LANG`: en | zh | both")
	flags, positional, err := splitArgs(fs, args)
	if err == nil {
		err = fs.Parse(flags)
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, explainUsage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmatour explain: %v\n", err)
		return 2
	}
	// The words of a status need no quotes: explain transport retry counter exceeded.
	code := strings.Join(append(positional, fs.Args()...), " ")
	if strings.TrimSpace(code) == "" {
		fmt.Fprintln(stderr, `rdmatour explain: give the code: rdmatour explain ENOMEM (or 12, IBV_WC_RETRY_EXC_ERR, "status 28", 0x60)`)
		return 2
	}
	ms, err := explain.Explain(code)
	var unknown *explain.UnknownCodeError
	if errors.As(err, &unknown) {
		for _, l := range lang.Each() {
			fmt.Fprintf(stderr, "rdmatour explain: %s\n", unknown.Text().In(l))
		}
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmatour explain: %v\n", err)
		return 1
	}
	if err := explain.Print(stdout, code, ms, lang); err != nil {
		fmt.Fprintf(stderr, "rdmatour explain: %v\n", err)
		return 1
	}
	return 0
}
