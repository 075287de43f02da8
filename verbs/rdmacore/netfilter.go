package rdmacore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rdmatour/rdmatour/verbs"
)

// The wire lessons on Soft-RoCE: rxe has no knob that loses a packet, so
// the receiving host drops it with an nftables rule on netfilter's input
// hook, where a switch's loss would show: rxe never sees the packet. The
// rule must be the receiver's: a packet the sender's own output chain
// drops is no loss to rxe, whose ip_local_out then fails, so rxe_xmit_packet
// returns -EAGAIN and the requester rolls the WQE back and sends it again
// at once (rxe_req.c rxe_requester, rollback_state; rxe_net.c rxe_send).
// rxe's receive path goes through it: the UDP tunnel socket's encap_rcv
// (rxe_net.c rxe_udp_encap_recv) runs after ip_local_deliver's
// NF_INET_LOCAL_IN. Between two QPs on one host it does not: rxe_send
// hands a packet whose destination is its own device to rxe_loopback,
// which calls rxe_rcv directly, past netfilter.
//
// The rule matches RoCEv2 (UDP 4791) packets whose BTH destination QP is
// this side's QP: the CM's MADs go to QP1 and are never counted, as the
// simulated NIC numbers only transport packets. numgen inc counts the
// packets that reach it from 0 (nft_numgen.c nft_ng_inc_gen; measured in
// the guest: with { 1, 3 } the 2nd and 4th are dropped), so the Nth
// packet, retransmissions included, is N-1 — the simulated NIC's
// numbering of the sender's packets (verbs/sim faults.go).

// roceV2Port is the RoCEv2 UDP destination port (IANA).
const roceV2Port = 4791

// ngModulus is numgen's modulus: far more packets than a tour sends, so
// the count never wraps and each listed packet is dropped once.
const ngModulus = 1 << 30

// nftTable is the table rdmatour makes for the QP: one per QP, so two
// tours on one host do not touch each other's rule, and a table left by
// a killed run is named for what made it.
func nftTable(qpn uint32) string { return fmt.Sprintf("rdmatour_qp_%06x", qpn) }

// nftRuleset is the nft -f input that loses f's packets arriving at QP
// qpn. Only drop=N… and loss=100% can be held on a real wire
// deterministically: numgen's random mode cannot be seeded, and netfilter
// neither doubles nor reorders.
func nftRuleset(qpn uint32, f verbs.WireFaults) (string, error) {
	if len(f.Dup) > 0 || len(f.Delay) > 0 || len(f.Reorder) > 0 || (f.LossPercent > 0 && f.LossPercent < 100) {
		return "", fmt.Errorf("only drop=N and loss=100%% can be made on a real wire (nftables cannot double, hold back or reorder a packet, nor draw seeded losses): %s", f)
	}
	match := fmt.Sprintf("udp dport %d @th,104,24 0x%06x", roceV2Port, qpn) // BTH bytes 5-7 after the 8-byte UDP header
	var rule string
	switch {
	case f.LossPercent >= 100:
		rule = match + " counter drop"
	case len(f.Drop) > 0:
		var ns []string
		for _, n := range slices.Sorted(slices.Values(f.Drop)) {
			ns = append(ns, fmt.Sprint(n-1))
		}
		rule = fmt.Sprintf("%s numgen inc mod %d { %s } counter drop", match, ngModulus, strings.Join(ns, ", "))
	default:
		return "", fmt.Errorf("no packet to drop: %q", f.String())
	}
	return fmt.Sprintf("table ip %s {\n\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n\t\t%s\n\t}\n}\n",
		nftTable(qpn), rule), nil
}
