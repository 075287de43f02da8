package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/rdmatour/rdmatour/pcapview"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

const pcapUsage = `Usage: rdmatour pcap FILE|- [--lang en|zh|both] [--tour TOUR]

Reads a RoCEv2 capture (tcpdump -w, Wireshark, or rdmatour --pcap; pcap or
pcapng) and prints one line per packet as the wire view does: CM messages,
QPs and PSNs, NAKs named, retransmissions and gaps called out. With --tour
it also says where the capture departs from what that tour puts on the wire.
An iWARP capture (siw, TCP on the tour's port) is listed by RDMAP message
and DDP queue. Capture your own with
  sudo tcpdump -i eth0 -w my.pcap udp port 4791     (RoCE v2)
  sudo tcpdump -i eth0 -w my.pcap tcp port 7471     (iWARP)
FILE - reads standard input: ... | rdmatour pcap -
Exit status: 0 printed; 1 the file is not a RoCEv2 capture, or is cut off
(the message says where); 2 a mistake on the command line.

`

// pcapArgs are pcap's command line.
type pcapArgs struct {
	file string
	lang text.Lang
	tour string // "" = no comparison
}

// runPcap is `rdmatour pcap`: it returns the exit status. FILE "-" is
// standard input (tcpdump -w - | rdmatour pcap -).
func runPcap(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	a, err := parsePcapArgs(args, stdout, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmatour pcap: %v\n", err)
		return 2
	}
	in := stdin
	if a.file != "-" {
		f, err := os.Open(a.file)
		if err != nil {
			fmt.Fprintf(stderr, "rdmatour pcap: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	out := termtext.NewGuard(stdout) // a file name is the learner's, but may hold anything
	c, readErr := pcapview.Read(in)
	var fe *pcapview.FileError
	if c != nil && (len(c.Packets) > 0 || len(c.IWARP) > 0) {
		if err := pcapview.Print(out, a.file, c, a.lang); err != nil {
			fmt.Fprintf(stderr, "rdmatour pcap: %v\n", err)
			return 1
		}
		if a.tour != "" && readErr == nil {
			cmp, _ := pcapview.Compare(c, a.tour) // the tour was checked when parsed
			if err := pcapview.PrintComparison(out, cmp, a.lang); err != nil {
				fmt.Fprintf(stderr, "rdmatour pcap: %v\n", err)
				return 1
			}
		}
	}
	switch {
	case errors.As(readErr, &fe):
		for _, l := range a.lang.Each() {
			fmt.Fprintf(stderr, "rdmatour pcap: %s: %s\n", a.file, fe.Text().In(l))
		}
		return 1
	case readErr != nil:
		fmt.Fprintf(stderr, "rdmatour pcap: %s: %v\n", a.file, readErr)
		return 1
	}
	return 0
}

// parsePcapArgs reads FILE and the flags, in any order.
func parsePcapArgs(args []string, out io.Writer, getenv func(string) string) (pcapArgs, error) {
	a := pcapArgs{lang: text.LangFromEnv(getenv)}
	fs := flag.NewFlagSet("rdmatour pcap", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(flagOf(&a.lang, text.ParseLang), "lang", "`LANG`: en | zh | both")
	tours := strings.Join(pcapview.Tours(), " | ")
	fs.StringVar(&a.tour, "tour", "", "compare with the sequence `TOUR` puts on the wire: "+tours)
	flags, positional, err := splitArgs(fs, args)
	if err != nil {
		return a, err
	}
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(out, pcapUsage)
			fs.SetOutput(out)
			fs.PrintDefaults()
		}
		return a, err
	}
	positional = append(positional, fs.Args()...)
	switch {
	case len(positional) == 0:
		return a, fmt.Errorf("give the capture file: rdmatour pcap FILE (tcpdump -w FILE writes one)")
	case len(positional) > 1:
		return a, fmt.Errorf("one capture file at a time, got %q", positional)
	}
	a.file = positional[0]
	if a.tour != "" && !slices.Contains(pcapview.Tours(), a.tour) {
		return a, fmt.Errorf("--tour %q: no measured sequence for it; use %s", a.tour, tours)
	}
	return a, nil
}
