package main

import (
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// wireFaults is --wire: the faults the simulated NIC puts on the packets
// one side sends. A term may name its side ("server:drop=1"); a term
// without one is this side's (demo: the client's).
type wireFaults struct {
	text   string
	bySide map[steps.Role]string
}

func (w wireFaults) String() string { return w.text }

// parseWireFaults checks every side's terms now, so a typo is a usage
// error before anything runs.
func parseWireFaults(s string) (wireFaults, error) {
	w := wireFaults{text: s, bySide: map[steps.Role]string{}}
	for _, term := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ';' }) {
		side := steps.Role(-1) // this side
		if p, rest, ok := strings.Cut(term, ":"); ok && (p == "server" || p == "client") {
			side, term = steps.Client, rest
			if p == "server" {
				side = steps.Server
			}
		}
		w.bySide[side] += " " + term
	}
	for _, terms := range w.bySide {
		if _, err := verbs.ParseWireFaults(terms); err != nil {
			return wireFaults{}, err
		}
	}
	return w, nil
}

// of is role's faults; this side's terms go to role when it is the side
// this command runs (the demo runs both and gives them to the client).
func (w wireFaults) of(role steps.Role, cmd command) verbs.WireFaults {
	terms := w.bySide[role]
	mine := (cmd == cmdServer && role == steps.Server) || (cmd != cmdServer && role == steps.Client)
	if mine {
		terms += w.bySide[steps.Role(-1)]
	}
	f, _ := verbs.ParseWireFaults(terms) // checked by parseWireFaults
	return f
}
