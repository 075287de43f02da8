package sim

import (
	"slices"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// TestWindowStopsAt128Unacked: with the ACK to its 66th packet lost, a
// WRITE of 300 packets goes out as far as PSN +128 (129 packets, rxe's
// RXE_MAX_UNACKED_PSNS past the oldest unacknowledged) and no further;
// the ACK timeout resends those 129, the ACK they ask for comes back, and
// the rest follows in steps of the window (window.go).
func TestWindowStopsAt128Unacked(t *testing.T) {
	const npkts = 300
	cfg := pairCfg{connect: verbs.ConnParam{RetryCount: 3}}
	cfg.opts.RxeWindow = true
	srv, cli := connectPair(t, cfg)
	base := longWrite(t, srv, cli, npkts, func() {
		f, err := verbs.ParseWireFaults("drop=1") // the server's first ACK
		must(t, err)
		must(t, srv.qp.(verbs.WireImpairer).ImpairWire(f))
	})
	lines := packetLines(cli.p.dev.Packets(0), base)
	first := slices.IndexFunc(lines, func(s string) bool { return len(s) > 6 && s[len(s)-6:] == " again" })
	if first != maxUnackedPSNs+1 {
		t.Fatalf("%d packets before the first retransmission, want %d:\n%q", first, maxUnackedPSNs+1, lines[:min(len(lines), 140)])
	}
	if lines[first-1] != "RDMA_WRITE_MIDDLE +128" || lines[first] != "RDMA_WRITE_FIRST +0 again" {
		t.Errorf("window ends at %q, resend starts at %q", lines[first-1], lines[first])
	}
	// 129 sent, 129 resent, and the 171 after them once, in PSN order.
	if n := len(lines); n != npkts+maxUnackedPSNs+1 {
		t.Errorf("%d packets on the wire, want %d", n, npkts+maxUnackedPSNs+1)
	}
}

// BenchmarkWriteTwoProcessesRxeWindow is BenchmarkWriteTwoProcesses with
// Options.RxeWindow on both sides: what playing rxe's window costs
// (window.go).
func BenchmarkWriteTwoProcessesRxeWindow(b *testing.B) {
	for _, size := range procSizes {
		b.Run(sizeName(size), func(b *testing.B) { writeTwoProcesses(b, "sim-rxe-window", size) })
	}
}

// TestWindowHoldsAQueue: with Options.RxeWindow, a queue of 16 WRITEs of
// 64 packets each never goes more than 128 PSNs past the last ACK the
// client received (the trace can only make the lead look smaller: an ACK
// is traced before the QP acts on it, a packet after); without it, every
// WRITE is on its way as soon as it is posted. Every WRITE completes
// either way. That the window reaches 128 exactly is
// TestWindowStopsAt128Unacked's: here it depends on when ACKs return.
func TestWindowHoldsAQueue(t *testing.T) {
	const n, size = 16, 64 << 10
	for _, window := range []bool{true, false} {
		cfg := pairCfg{}
		cfg.opts.RxeWindow = window
		cfg.opts.TraceWindow = 2 * n * size >> 10 // every packet and ACK
		srv, cli := connectPair(t, cfg)
		remote := srv.regMR(t, size, rwAccess)
		local := cli.regMR(t, size, verbs.AccessLocalWrite)
		q := cli.qp.(*qp)
		q.mu.Lock()
		base := q.sqPSN
		q.mu.Unlock()
		for i := range n {
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: uint64(i), Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
				SGList: sge(local, 0, size), RemoteAddr: remote.Addr(), RKey: remote.RKey()}))
			q.mu.Lock()
			allSent := q.sendIdx == len(q.sq) && q.partlySent() == nil
			q.mu.Unlock()
			if !window && !allSent {
				t.Fatalf("without the window, WRITE %d waits to be sent", i)
			}
		}
		for i, wc := range pollN(t, cli.cq, n) {
			wantStatus(t, wc, uint64(i), verbs.WCSuccess)
		}
		acked, most := 0, 0 // the next PSN to acknowledge; the largest lead seen
		for _, p := range cli.p.dev.Packets(0) {
			d := psnDiff(p.PSN, base)
			switch {
			case !p.Outbound && p.Opcode == verbs.OpAcknowledge:
				acked = max(acked, d+1)
			case p.Outbound:
				most = max(most, d-acked)
			}
		}
		if window && most > maxUnackedPSNs {
			t.Errorf("a packet went out %d PSNs past the oldest unacknowledged, want at most %d", most, maxUnackedPSNs)
		}
	}
}
