package wire

import "sort"

// tourWire is the packet sequence (Kind of each packet, in order) each
// tour puts on the wire between two Soft-RoCE hosts, measured by
// scripts/twohosts.sh into testdata/rxe-two-hosts-*.pcap; TestRxeCapturesRoundTrip
// checks the captures against it. The write tour has one sequence per
// notify mode.
var tourWire = map[string][]TourVariant{
	"write": {
		{Name: "send", Capture: "send", Kinds: []string{"CM REQ", "CM REP", "CM RTU", "RC RDMA_WRITE_ONLY", "RC ACKNOWLEDGE ACK", "RC SEND_ONLY", "RC ACKNOWLEDGE ACK", "CM DREQ", "CM DREP"}},
		{Name: "doorbell", Capture: "doorbell", Kinds: []string{"CM REQ", "CM REP", "CM RTU", "RC RDMA_WRITE_ONLY", "RC ACKNOWLEDGE ACK", "RC RDMA_WRITE_ONLY", "RC ACKNOWLEDGE ACK", "CM DREQ", "CM DREP"}},
		{Name: "imm", Capture: "imm", Kinds: []string{"CM REQ", "CM REP", "CM RTU", "RC RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RC ACKNOWLEDGE ACK", "CM DREQ", "CM DREP"}},
	},
	// One request; the 4096 bytes come back as four responses at the
	// 1024-byte path MTU, the first and last with AETH.
	"read": {{Name: "read", Capture: "read", Kinds: []string{"CM REQ", "CM REP", "CM RTU", "RC RDMA_READ_REQUEST",
		"RC RDMA_READ_RESPONSE_FIRST", "RC RDMA_READ_RESPONSE_MIDDLE", "RC RDMA_READ_RESPONSE_MIDDLE", "RC RDMA_READ_RESPONSE_LAST", "CM DREQ", "CM DREP"}}},
	// Each atomic is answered by an ATOMIC_ACKNOWLEDGE carrying the old value.
	"atomic": {{Name: "atomic", Capture: "atomic", Kinds: []string{"CM REQ", "CM REP", "CM RTU", "RC FETCH_ADD", "RC ATOMIC_ACKNOWLEDGE",
		"RC COMPARE_SWAP", "RC ATOMIC_ACKNOWLEDGE", "CM DREQ", "CM DREP"}}},
	// SIDR instead of REQ/REP/RTU, the client's two datagrams (the first
	// dropped at the server for want of a RECV) and the server's answer,
	// no ACK, no DREQ.
	"ud": {{Name: "ud", Capture: "ud", Kinds: []string{"CM SIDR_REQ", "CM SIDR_REP", "UD SEND_ONLY", "UD SEND_ONLY", "UD SEND_ONLY"}}},
}

// TourVariant is one measured sequence of a tour: Name is the variant
// (the notify mode for the write tour), Capture the kept capture it was
// measured in (testdata/rxe-two-hosts-<Capture>.pcap), Kinds the Kind of
// each packet.
type TourVariant struct {
	Name, Capture string
	Kinds         []string
}

// MeasuredTours are the tours with a measured sequence, sorted.
func MeasuredTours() []string {
	out := make([]string, 0, len(tourWire))
	for t := range tourWire {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// TourSequences are the sequences tour (write, read, atomic, ud) puts
// on the wire between two Soft-RoCE hosts, or nil for a tour not measured.
func TourSequences(tour string) []TourVariant {
	vs := tourWire[tour]
	out := make([]TourVariant, len(vs))
	for i, v := range vs {
		out[i] = TourVariant{Name: v.Name, Capture: v.Capture, Kinds: append([]string(nil), v.Kinds...)}
	}
	return out
}
