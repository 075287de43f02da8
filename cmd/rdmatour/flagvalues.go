package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// typedFlag is a flag.Value that parses its text with the typed value's
// own Parse function, so a bad value is refused by the flag package with
// the parser's words ("invalid value "fr" for flag -lang: unknown
// language ...") and nothing downstream sees a string.
type typedFlag[T fmt.Stringer] struct {
	dst   *T
	parse func(string) (T, error)
}

func (f typedFlag[T]) String() string {
	if f.dst == nil { // the zero value flag.PrintDefaults compares against
		return ""
	}
	return (*f.dst).String()
}

func (f typedFlag[T]) Set(s string) error {
	v, err := f.parse(s)
	if err != nil {
		return err
	}
	*f.dst = v
	return nil
}

func flagOf[T fmt.Stringer](dst *T, parse func(string) (T, error)) typedFlag[T] {
	return typedFlag[T]{dst: dst, parse: parse}
}

// backend is which verbs provider the tour runs on.
type backend string

const (
	backendAuto backend = "auto" // real RDMA if it serves the address, else the simulated NIC
	backendRDMA backend = "rdma"
	backendSim  backend = "sim"
)

func (b backend) String() string { return string(b) }

func parseBackend(s string) (backend, error) {
	switch b := backend(s); b {
	case backendAuto, backendRDMA, backendSim:
		return b, nil
	}
	return "", fmt.Errorf("unknown backend %q: use auto, rdma or sim", s)
}

// port is a TCP/rdma_cm port a learner typed: 1..65535 (0 would let the
// system pick, which no learner means).
type port int

func (p port) String() string { return strconv.Itoa(int(p)) }

func parsePort(s string) (port, error) {
	p, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("port %q is not a number: use 1-65535", s)
	}
	if p < 1 || p > 65535 {
		return 0, fmt.Errorf("port %q is out of range: use 1-65535", s)
	}
	return port(p), nil
}

// byteCount is --message-size; Config.Validate judges its range against
// the buffer and the message.
type byteCount int

func (b byteCount) String() string { return strconv.Itoa(int(b)) }

func parseByteCount(s string) (byteCount, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number of bytes: write it like 3000", s)
	}
	return byteCount(n), nil
}

// rnrRetry is rnr_retry_count: 0..steps.MaxRNRRetry.
type rnrRetry uint8

func (r rnrRetry) String() string { return strconv.Itoa(int(r)) }

func parseRNRRetry(s string) (rnrRetry, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > steps.MaxRNRRetry {
		return 0, fmt.Errorf("%q is out of range: 0..%d (%d = retry forever)", s, steps.MaxRNRRetry, steps.MaxRNRRetry)
	}
	return rnrRetry(n), nil
}

// duration is a time.Duration flag; Config.Validate judges its range, so
// --timeout and --wait-client are refused the same way.
type duration time.Duration

func (d duration) String() string { return time.Duration(d).String() }

func parseDuration(s string) (duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: write it like 30s, 2m or 1h", s)
	}
	return duration(d), nil
}

// pauseStep is a step ID for --pause-at: one some tour has.
type pauseStep string

func (p pauseStep) String() string { return string(p) }

func parsePauseStep(s string) (pauseStep, error) {
	for _, known := range steps.AllStepIDs() {
		if string(known) == s {
			return pauseStep(s), nil
		}
	}
	return "", fmt.Errorf("unknown step %q for --pause-at (the IDs are in the plain tour's headings, e.g. accept)", s)
}

// checkPauseAt refuses a --pause-at step that none of these sessions
// runs: parsePauseStep knows only that some tour has it, and a step of
// another tour (or the other side's) would never pause (X4 of the
// hostile review).
func checkPauseAt(p pauseStep, sessions []steps.Runner) error {
	if p == "" {
		return nil
	}
	var ids []string
	seen := map[steps.StepID]bool{}
	for _, s := range sessions {
		for _, st := range s.Steps() {
			if string(st.ID) == string(p) {
				return nil
			}
			if !seen[st.ID] {
				seen[st.ID] = true
				ids = append(ids, string(st.ID))
			}
		}
	}
	return usagef("--pause-at %s: the tour run here has no such step (its steps: %s)", p, strings.Join(ids, ", "))
}
