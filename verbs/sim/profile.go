package sim

import (
	"fmt"
	"net/netip"
	"syscall"

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
//     program that hard-codes sgid_index 0 picks RoCE v1;
//   - a send queue slot frees when a completion of its WR or a later one
//     is polled, the spec's rule as mlx5 has it, where rxe frees it when
//     the WR is acknowledged (sqslots.go): a program that never signals
//     fills the queue for good.
type Profile int

const (
	ProfileRxe    Profile = iota // rxe, as measured (the default)
	ProfileStrict                // lkey ≠ rkey, little inline data, few RDMA READ resources, RoCE v1 and v2 GIDs, slots freed on poll
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
	// RoCEv1: the GID table's index 0 is a RoCE v1 entry for the
	// IPv4 address (rxe's is the IPv6 link-local GID). Index 1 is the
	// IPv4 RoCE v2 GID in both: the one rdma_cm uses.
	RoCEv1 bool
	// SlotsFreedOnPoll: an unsignaled WR's send queue slot frees only
	// when a completion of it or a later WR is polled (sqslots.go).
	SlotsFreedOnPoll bool
}

// Limits is p's numbers.
func (p Profile) Limits() Limits {
	if p == ProfileStrict {
		return Limits{SplitKeys: true, MaxInlineData: 64, ExactInline: true, MaxQPRdAtom: 4, RoCEv1: true, SlotsFreedOnPoll: true}
	}
	return Limits{MaxInlineData: rxeMaxInlineData, MaxQPRdAtom: maxRdAtomic}
}

// gidTable is the port's GID table for gid under p. rxe's, measured
// (TestAddressingFacts, 6.1): RoCE v2 entries only (rxe's port speaks
// RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP alone, so the GID cache adds no v1
// ones), the IPv6 link-local GID at index 0 and the IPv4-mapped GID at
// index 1. The strict profile's: a RoCE v1 and a RoCE v2 entry for the
// IPv4 address, as a kernel fills it for a NIC that speaks both.
func (l Limits) gidTable(gid, linkLocal netip.Addr) []verbs.GIDEntry {
	if l.RoCEv1 {
		return []verbs.GIDEntry{{Index: 0, GID: gid, Type: "RoCE v1"}, {Index: 1, GID: gid, Type: "RoCE v2"}}
	}
	return []verbs.GIDEntry{{Index: 0, GID: linkLocal, Type: "RoCE v2"}, {Index: 1, GID: gid, Type: "RoCE v2"}}
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

// gidIndexInUse is the GID index rdma_cm puts in the address vector:
// the IPv4 RoCE v2 entry, index 1 in both profiles.
const gidIndexInUse = 1

// checkSGIDIndex refuses an address vector's sgid_index as rxe does
// (measured: TestAddressingFacts on 6.1):
//   - an index with no GID: ENODATA, from rdma_get_gid_attr (core/cache.c),
//     which ib_modify_qp's rdma_fill_sgid_attr calls before the driver;
//   - the IPv6 link-local GID toward an IPv4-mapped dgid: EINVAL, the
//     route between the two cannot be resolved (ib_resolve_eth_dmac);
//   - a RoCE v1 GID (strict profile): EINVAL, as rxe_av_chk_attr refuses
//     a GID whose network type is not IPv4 or IPv6; the simulated wire
//     carries RoCE v2 frames only.
func checkSGIDIndex(fn string, ah verbs.AHAttr, table []verbs.GIDEntry) error {
	index := int(ah.SGIDIndex)
	if index >= len(table) {
		return verbs.Errorf(fn, syscall.ENODATA, "sgid_index %d: sim0's GID table has no entry there (it ends at index %d)", index, len(table)-1)
	}
	g := table[index]
	switch {
	case g.Type == "RoCE v1":
		return verbs.Errorf(fn, errEINVAL, "sgid_index %d is a RoCE v1 GID: sim0's wire carries RoCE v2 only (index %d)", index, gidIndexInUse)
	case g.GID.Is4In6() != ah.DGID.Is4In6():
		return verbs.Errorf(fn, errEINVAL, "sgid_index %d is %s, dgid is %s: no route between an IPv6 and an IPv4 address", index, g.GID, ah.DGID)
	}
	return nil
}
