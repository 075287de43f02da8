package sim

import (
	"bytes"
	"io"
	"slices"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// TestAckReqEvery66: a WRITE of 200 packets asks for an ACK on its 66th,
// 132nd and 198th packets and on its last, and the responder answers
// each, as rxe's requester and responder do (msgrun.go reqAckEvery; twin:
// TestRxeAckReqEvery66). Both framings of the simulated wire: run frames,
// and packet by packet (a pcap on the client holds packets).
func TestAckReqEvery66(t *testing.T) {
	const npkts = 200
	wantAsks := []int{65, 131, 197, 199}
	for _, tt := range []struct {
		name string
		pcap io.Writer
	}{{"run frames", nil}, {"packet frames", io.Discard}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := pairCfg{}
			cfg.opts.Pcap = tt.pcap
			srv, cli := connectPair(t, cfg)
			base := longWrite(t, srv, cli, npkts, nil)
			asks, acks := ackReqs(cli.p.dev.Packets(0), base)
			if !slices.Equal(asks, wantAsks) {
				t.Errorf("AckReq on packets %v, want %v", asks, wantAsks)
			}
			if !slices.Equal(acks, wantAsks) {
				t.Errorf("ACKs for packets %v, want %v", acks, wantAsks)
			}
			cc, sc := movedCounters(t, cli), movedCounters(t, srv)
			if cc["sent_pkts"] != npkts || sc["sent_pkts"] != uint64(len(wantAsks)) || cc["rcvd_pkts"] != uint64(len(wantAsks)) {
				t.Errorf("counters: client %v, server %v; want %d packets out and %d ACKs back", cc, sc, npkts, len(wantAsks))
			}
		})
	}
}

// longWrite WRITEs npkts KiB from cli to srv (after impair, if set, has
// run), checks that it completes and lands, and returns the PSN the
// client started it at.
func longWrite(t *testing.T, srv, cli *side, npkts int, impair func()) uint32 {
	t.Helper()
	remote := srv.regMR(t, npkts<<10, rwAccess)
	local := cli.regMR(t, npkts<<10, verbs.AccessLocalWrite)
	data := bytes.Repeat([]byte("0123456789abcdef"), npkts<<10/16)
	must(t, local.Write(0, data))
	if impair != nil {
		impair()
	}
	q := cli.qp.(*qp)
	q.mu.Lock()
	base := q.sqPSN
	q.mu.Unlock()
	must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList: sge(local, 0, npkts<<10), RemoteAddr: remote.Addr(), RKey: remote.RKey()}))
	wantStatus(t, pollN(t, cli.cq, 1)[0], 1, verbs.WCSuccess)
	got, err := remote.Read(0, npkts<<10)
	must(t, err)
	if !bytes.Equal(got, data) {
		t.Fatal("the WRITE's bytes differ at the server")
	}
	return base
}

// ackReqs is, from the client's trace, which of its packets set AckReq
// and which the ACKs it received acknowledged, as offsets from base.
func ackReqs(ps []verbs.Packet, base uint32) (asks, acks []int) {
	for _, p := range ps {
		switch {
		case p.Outbound && p.AckReq:
			asks = append(asks, psnDiff(p.PSN, base))
		case !p.Outbound && p.Opcode == verbs.OpAcknowledge:
			acks = append(acks, psnDiff(p.PSN, base))
		}
	}
	return asks, acks
}
