package rdmacore

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// TestNftRuleset: the rule matches the QP's RoCEv2 packets by the BTH's
// destination QP and drops the listed ones (numgen counts from 0), or
// all; faults netfilter cannot make are refused with what can be.
func TestNftRuleset(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    verbs.WireFaults
		want string // in the ruleset; "" = refused
	}{
		{"one", verbs.WireFaults{Drop: []int{2}}, "udp dport 4791 @th,104,24 0x000011 numgen inc mod 1073741824 { 1 } counter drop"},
		{"several", verbs.WireFaults{Drop: []int{4, 1}}, "numgen inc mod 1073741824 { 0, 3 } counter drop"},
		{"all", verbs.WireFaults{LossPercent: 100}, "udp dport 4791 @th,104,24 0x000011 counter drop"},
		{"some", verbs.WireFaults{LossPercent: 50, Seed: 2}, ""},
		{"dup", verbs.WireFaults{Dup: []int{2}}, ""},
		{"delay", verbs.WireFaults{Delay: []verbs.WireDelay{{N: 2, D: time.Millisecond}}}, ""},
		{"reorder", verbs.WireFaults{Reorder: []int{2}}, ""},
		{"none", verbs.WireFaults{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := nftRuleset(0x11, tc.f)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("accepted:\n%s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tc.want) || !strings.HasPrefix(got, "table ip rdmatour_qp_000011 {") || !strings.Contains(got, "hook input") {
				t.Errorf("ruleset:\n%s\nwant a rule %q on the input hook", got, tc.want)
			}
		})
	}
}
