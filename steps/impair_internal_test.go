package steps

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// plainQP is a QP whose NIC cannot impair its wire (real verbs).
type plainQP struct{ verbs.QP }

func (plainQP) Num() uint32 { return 0x11 }

// dropperNIC is a provider that drops arriving packets (as rdmacore does
// with nftables), recording what it was asked.
type dropperNIC struct {
	verbs.Provider
	err     error
	qpn     uint32
	f       verbs.WireFaults
	removed bool
}

func (d *dropperNIC) DropArriving(qpn uint32, _ netip.Addr, f verbs.WireFaults) (func() error, error) {
	if d.err != nil {
		return nil, d.err
	}
	d.qpn, d.f = qpn, f
	return func() error { d.removed = true; return nil }, nil
}

// On a QP that cannot impair its own wire: --wire fails the create-qp
// step with what to do; a lesson's losses are the receiver's, so the
// side whose peer loses packets asks its provider to drop them as they
// arrive (refused with what to do when it cannot) and takes the rule
// away at teardown, and the losing side only says so.
func TestImpairWireOnARealNIC(t *testing.T) {
	lw := lessonLostWrite()
	for _, tc := range []struct {
		name    string
		cfg     Config
		nic     *dropperNIC // nil: a provider that cannot drop
		problem string      // in the Problem's What; "" = the step succeeds
		note    string      // in the step's note
		drops   []int       // what the provider was asked to drop
	}{
		{"--wire", Config{Role: Client, Wire: verbs.WireFaults{Drop: []int{5}}, Lesson: &lw}, &dropperNIC{}, "this NIC cannot", "", nil},
		{"lost-write client", Config{Role: Client, Lesson: &lw}, nil, "", "the peer's host drops them", nil},
		{"lost-write server, no dropper", Config{Role: Server, Lesson: &lw}, nil, "this NIC cannot", "", nil},
		{"lost-write server", Config{Role: Server, Lesson: &lw}, &dropperNIC{}, "", "nftables rule", []int{2}},
		{"lost-write server, not root", Config{Role: Server, Lesson: &lw}, &dropperNIC{err: syscall.EPERM}, "this NIC cannot", "", nil},
		{"no lesson", Config{Role: Server}, nil, "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.nic != nil {
				tc.cfg.Provider = tc.nic
			}
			s := &Session{cfg: tc.cfg}
			var out Outcome
			err := s.impairWire(plainQP{}, &out)
			var p *Problem
			switch {
			case tc.problem == "" && err != nil:
				t.Fatalf("err %v", err)
			case tc.problem != "" && (!errors.As(err, &p) || !strings.Contains(p.What.EN, tc.problem) || !strings.Contains(p.Fix.EN, "--backend sim") || p.Fix.ZH == ""):
				t.Fatalf("err %v, want a Problem %q saying to use --backend sim", err, tc.problem)
			}
			if !strings.Contains(out.Note.EN, tc.note) || (tc.note != "" && out.Note.ZH == "") {
				t.Errorf("note %q, want %q", out.Note.EN, tc.note)
			}
			if tc.nic == nil || tc.drops == nil {
				return
			}
			if tc.nic.qpn != 0x11 || !slices.Equal(tc.nic.f.Drop, tc.drops) {
				t.Errorf("asked to drop %v at QP 0x%x, want %v at 0x11", tc.nic.f, tc.nic.qpn, tc.drops)
			}
			var log teardownLog
			s.tourState.release(&log)
			if !tc.nic.removed || log.err != nil {
				t.Errorf("teardown left the rule (removed %v, err %v)", tc.nic.removed, log.err)
			}
		})
	}
}

// A lesson's faults join --wire's.
func TestWireFaultsJoinTheLessons(t *testing.T) {
	lw := lessonLostWrite()
	s := &Session{cfg: Config{Role: Client, Wire: verbs.WireFaults{Drop: []int{5}}, Lesson: &lw}}
	if got := s.wireFaults(); !slices.Equal(got.Drop, []int{2, 5}) {
		t.Errorf("faults %v, want the lesson's drop=2 and --wire's drop=5", got)
	}
}
