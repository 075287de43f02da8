package verbs

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WireFaults is what --wire asks a NIC to do to the transport packets
// one side sends (CM messages are left alone): lose some, send one
// twice, hold one back. Packets are numbered from 1 in the order the
// side puts them on the wire, retransmissions included. The zero value
// changes nothing.
type WireFaults struct {
	// Drop lists the packets that are lost.
	Drop []int
	// LossPercent loses each packet with this probability (0..100),
	// drawn from a generator seeded with Seed, so a run repeats.
	LossPercent float64
	Seed        uint64
	// Dup lists the packets that arrive twice.
	Dup []int
	// Delay holds packets back.
	Delay []WireDelay
	// Reorder lists the packets that go out after the packet behind them.
	Reorder []int
}

// WireDelay is one held-back packet: the Nth, sent D late.
type WireDelay struct {
	N int
	D time.Duration
}

// IsZero reports whether the faults change nothing.
func (f WireFaults) IsZero() bool {
	return len(f.Drop) == 0 && f.LossPercent == 0 && len(f.Dup) == 0 && len(f.Delay) == 0 && len(f.Reorder) == 0
}

// String is the faults in --wire's language (ParseWireFaults reads it back).
func (f WireFaults) String() string {
	var terms []string
	list := func(name string, ns []int) {
		if len(ns) == 0 {
			return
		}
		s := make([]string, len(ns))
		for i, n := range ns {
			s[i] = strconv.Itoa(n)
		}
		terms = append(terms, name+"="+strings.Join(s, ","))
	}
	list("drop", f.Drop)
	if f.LossPercent > 0 {
		terms = append(terms, "loss="+strconv.FormatFloat(f.LossPercent, 'g', -1, 64)+"%", "seed="+strconv.FormatUint(f.Seed, 10))
	}
	list("dup", f.Dup)
	for _, d := range f.Delay {
		terms = append(terms, fmt.Sprintf("delay=%d:%s", d.N, d.D))
	}
	list("reorder", f.Reorder)
	return strings.Join(terms, " ")
}

// WireFaultsError is a --wire value that cannot be read: the term, and
// what is wrong with it.
type WireFaultsError struct {
	Term   string
	Reason string
}

func (e *WireFaultsError) Error() string {
	return fmt.Sprintf("--wire %q: %s (terms: drop=N[,M…] loss=P%% seed=S dup=N delay=N:DURATION reorder=N, separated by spaces)", e.Term, e.Reason)
}

// maxWireDelay bounds delay=N:D: longer than any ACK timeout a tour
// uses, short enough that a typo does not hang a run.
const maxWireDelay = 10 * time.Second

// ParseWireFaults reads --wire: terms separated by spaces or semicolons,
// e.g. "drop=2", "drop=1,4 dup=3", "loss=5% seed=7", "delay=2:300ms",
// "reorder=1".
func ParseWireFaults(s string) (WireFaults, error) {
	var f WireFaults
	seeded := false
	for _, term := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ';' || r == '\t' }) {
		name, val, ok := strings.Cut(term, "=")
		if !ok || val == "" {
			return WireFaults{}, &WireFaultsError{term, "expected NAME=VALUE"}
		}
		var err error
		switch name {
		case "drop":
			f.Drop, err = appendPacketNumbers(f.Drop, val)
		case "dup":
			f.Dup, err = appendPacketNumbers(f.Dup, val)
		case "reorder":
			f.Reorder, err = appendPacketNumbers(f.Reorder, val)
		case "loss":
			f.LossPercent, err = parsePercent(val)
		case "seed":
			f.Seed, err = strconv.ParseUint(val, 10, 64)
			seeded = true
		case "delay":
			var d WireDelay
			d, err = parseDelay(val)
			f.Delay = append(f.Delay, d)
		default:
			err = fmt.Errorf("unknown fault %q", name)
		}
		if err != nil {
			return WireFaults{}, &WireFaultsError{term, err.Error()}
		}
	}
	if seeded && f.LossPercent == 0 {
		return WireFaults{}, &WireFaultsError{s, "seed= goes with loss=P%"}
	}
	return f, nil
}

// appendPacketNumbers reads "N[,M…]": packet numbers from 1.
func appendPacketNumbers(ns []int, val string) ([]int, error) {
	for _, p := range strings.Split(val, ",") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a packet number (1, 2, …)", p)
		}
		if !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns, nil
}

func parsePercent(val string) (float64, error) {
	p, err := strconv.ParseFloat(strings.TrimSuffix(val, "%"), 64)
	if err != nil || math.IsNaN(p) || p < 0 || p > 100 {
		return 0, fmt.Errorf("%q is not a percentage from 0 to 100", val)
	}
	return p, nil
}

func parseDelay(val string) (WireDelay, error) {
	ns, ds, ok := strings.Cut(val, ":")
	if !ok {
		return WireDelay{}, fmt.Errorf("expected N:DURATION, e.g. 2:300ms")
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return WireDelay{}, fmt.Errorf("%q is not a packet number (1, 2, …)", ns)
	}
	d, err := time.ParseDuration(ds)
	if err != nil || d <= 0 || d > maxWireDelay {
		return WireDelay{}, fmt.Errorf("%q is not a duration above 0 and at most %s", ds, maxWireDelay)
	}
	return WireDelay{N: n, D: d}, nil
}

// WireImpairer is a QP whose NIC can impair the wire on purpose (the
// simulated NIC): ImpairWire applies f to the packets the QP sends from
// now on, numbering them from 1.
type WireImpairer interface {
	ImpairWire(f WireFaults) error
}

// ArrivalDropper is a provider that can lose the packets arriving at one
// of its QPs, where a real NIC cannot impair its own wire (rdmacore: an
// nftables rule on this host's input hook, so it needs root and nft).
// f numbers the packets as the peer's QP sends them, from 1, as
// WireImpairer does on the sending side; peer is the peer's address, so
// that a peer on this very host, whose packets never cross netfilter,
// is refused. remove takes the rule away (the tour's teardown).
type ArrivalDropper interface {
	DropArriving(qpn uint32, peer netip.Addr, f WireFaults) (remove func() error, err error)
}
