package main

import (
	"flag"
	"strconv"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
)

// takePositionals reads the seed's positional forms. A --port flag wins
// over a positional port.
func (o *options) takePositionals(positional []string, set map[string]bool) error {
	switch o.cmd {
	case cmdServer:
		if len(positional) > 1 {
			return usagef("server takes at most one positional argument (the port), got %q", positional)
		}
		if len(positional) == 1 {
			return o.positionalPort(positional[0], set)
		}
		return nil
	case cmdClient:
		return o.clientPositionals(positional, set)
	case cmdReplay:
		return o.replayPositionals(positional)
	case cmdEdits:
		if len(positional) > 1 {
			return usagef("edits takes at most one step, got %q", positional)
		}
		if len(positional) == 1 {
			o.editsOf = positional[0]
		}
		return nil
	}
	if len(positional) > 0 {
		return usagef("%s takes no arguments, got %q", o.cmd, positional)
	}
	return nil
}

func (o *options) positionalPort(s string, set map[string]bool) error {
	p, err := parsePort(s)
	if err != nil {
		return usagef("%v", err)
	}
	if !set["port"] {
		o.port = p
	}
	return nil
}

// clientPositionals: SERVER [PORT] [SRC_IP|NOTIFY] [NOTIFY]. As in the
// seed, argv[4] is a notify mode if it parses as one, else the source
// address; argv[5] must be a notify mode.
func (o *options) clientPositionals(positional []string, set map[string]bool) error {
	switch {
	case len(positional) == 0:
		return usagef("client needs the server's address: rdmatour client SERVER [PORT]")
	case len(positional) > 4:
		return usagef("too many arguments: %q (rdmatour client SERVER [PORT] [SRC_IP] [NOTIFY])", positional)
	}
	o.server = positional[0]
	if len(positional) >= 2 {
		if err := o.positionalPort(positional[1], set); err != nil {
			return err
		}
	}
	if len(positional) >= 3 {
		if n, err := steps.ParseNotify(positional[2]); err == nil {
			o.setPositionalNotify(n, set)
		} else {
			o.src = positional[2]
		}
	}
	if len(positional) == 4 {
		n, err := steps.ParseNotify(positional[3])
		if err != nil {
			return usagef("unknown notify mode: %s (use send, doorbell or imm)", positional[3])
		}
		o.setPositionalNotify(n, set)
	}
	return nil
}

// setPositionalNotify takes the seed's notify argument unless --notify
// said otherwise.
func (o *options) setPositionalNotify(n steps.Notify, set map[string]bool) {
	if !set["notify"] {
		o.notify = n
		set["notify"] = true // it was asked for, as far as a lesson cares
	}
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
		if !strings.HasPrefix(a, "-") || a == "-" || isNumber(a) {
			positional = append(positional, a) // "-1" is a (bad) port, not a flag
			continue
		}
		flags = append(flags, a)
		if !takesValue(fs, a) {
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

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// takesValue says the flag argument a ("--port", not "--port=1") is
// followed by its value. Unknown flags are left for fs.Parse to report.
func takesValue(fs *flag.FlagSet, a string) bool {
	name := strings.TrimLeft(a, "-")
	if strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	bf, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !bf.IsBoolFlag()
}
