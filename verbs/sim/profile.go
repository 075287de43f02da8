package sim

import (
	"fmt"
	"net/netip"

	"github.com/rdmatour/rdmatour/verbs"
)

// Profile is the NIC the simulated one plays. The default is rxe, as
// measured; the strict profile differs where rxe happens to hide a bug
// that other NICs show, each difference one line of Limits:
//
//   - lkey ≠ rkey: rxe gives an MR one key for both (rxe_mr.c,
//     rxe_mr_init: mr->lkey = mr->rkey), so a program that sends its lkey
//     as the rkey works on rxe and fails on most hardware;
//   - max_inline_data as asked, at most 64 bytes: rxe rounds the send WQE
//     up and grants at least 16 bytes of inline data to a QP that asked
//     for none (rxeCaps), so a small IBV_SEND_INLINE works there;
//   - max_qp_rd_atom 4 where rxe has 128: responder_resources and
//     initiator_depth beyond it are refused;
//   - the GID table has a RoCE v1 entry at index 0 and the RoCE v2 entry
//     at index 1, as a kernel fills it for a NIC that speaks both: a
//     program that hard-codes sgid_index 0 picks RoCE v1.
type Profile int

const (
	ProfileRxe    Profile = iota // rxe, as measured (the default)
	ProfileStrict                // lkey ≠ rkey, little inline data, few RDMA READ resources, RoCE v1 and v2 GIDs
)

// ParseProfile reads --nic's value.
func ParseProfile(s string) (Profile, error) {
	for _, p := range []Profile{ProfileRxe, ProfileStrict} {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown NIC profile %q: use rxe or strict", s)
}

func (p Profile) String() string {
	if p == ProfileStrict {
		return "strict"
	}
	return "rxe"
}

// Limits are the numbers in which the profiles differ.
type Limits struct {
	// SplitKeys: an MR's rkey is not its lkey.
	SplitKeys bool
	// MaxInlineData is the most ibv_create_qp grants; ExactInline says
	// it grants what was asked (rxe rounds up: rxeCaps).
	MaxInlineData uint32
	ExactInline   bool
	// MaxQPRdAtom is max_qp_rd_atom and max_qp_init_rd_atom.
	MaxQPRdAtom uint8
	// RoCEv2Index is the GID index of the RoCE v2 entry, the one rdma_cm
	// uses and the only one the simulated wire can carry; a RoCE v1
	// entry sits at index 0 when it is 1.
	RoCEv2Index int
}

// Limits is p's numbers.
func (p Profile) Limits() Limits {
	if p == ProfileStrict {
		return Limits{SplitKeys: true, MaxInlineData: 64, ExactInline: true, MaxQPRdAtom: 4, RoCEv2Index: 1}
	}
	return Limits{MaxInlineData: rxeMaxInlineData, MaxQPRdAtom: maxRdAtomic}
}

// gidTable is the port's GID table for gid under p.
func (l Limits) gidTable(gid netip.Addr) []verbs.GIDEntry {
	if l.RoCEv2Index == 0 {
		return []verbs.GIDEntry{{Index: 0, GID: gid, Type: "RoCE v2"}}
	}
	return []verbs.GIDEntry{{Index: 0, GID: gid, Type: "RoCE v1"}, {Index: 1, GID: gid, Type: "RoCE v2"}}
}

// limits is this NIC's profile's numbers.
func (d *device) limits() Limits { return d.p.opts.Profile.Limits() }

// grantedCaps is what ibv_create_qp grants for c: rxe's rounding, or, in
// the strict profile, rxe's queues with exactly the inline data asked.
func (l Limits) grantedCaps(c verbs.QPCap) verbs.QPCap {
	got := rxeCaps(c)
	if l.ExactInline {
		got.MaxInlineData = c.MaxInlineData
		got.MaxSendSGE = c.MaxSendSGE
	}
	return got
}

// checkSGIDIndex refuses an address vector's sgid_index that the GID
// table lacks, or its RoCE v1 entry: the simulated wire carries RoCE v2
// frames only.
func checkSGIDIndex(fn string, index int, l Limits) error {
	switch {
	case index == l.RoCEv2Index:
		return nil
	case index < l.RoCEv2Index:
		return verbs.Errorf(fn, errEINVAL, "sgid_index %d is sim0's RoCE v1 GID: its wire carries RoCE v2 only (index %d)", index, l.RoCEv2Index)
	}
	return verbs.Errorf(fn, errEINVAL, "sgid_index %d: sim0's GID table ends at index %d", index, l.RoCEv2Index)
}
