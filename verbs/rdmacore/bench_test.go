//go:build linux && cgo

package rdmacore

import (
	"sort"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// spin busy-polls cq for n completions (no sleeping: this is a latency
// measurement), failing on any error status. It reads the clock only every
// 1024 empty polls: under TCG time.Now was 8% of the CPU profile, paid
// between polls, and so added to the latency measured.
func spin(b *testing.B, cq verbs.CQ, n int) {
	deadline := time.Now().Add(evTimeout)
	for empty := 0; n > 0; {
		wcs, err := cq.Poll(n)
		if err != nil {
			b.Fatal(err)
		}
		for _, wc := range wcs {
			if wc.Status != verbs.WCSuccess {
				b.Fatalf("wc %+v: %s", wc, wc.Status)
			}
		}
		n -= len(wcs)
		if len(wcs) == 0 {
			if empty++; empty%1024 == 0 && time.Now().After(deadline) {
				b.Fatal("no completion")
			}
		}
	}
}

// BenchmarkWriteLatency: one signaled 8-byte RDMA WRITE, post + poll until
// its completion (the requester sees it after the responder's ACK).
func BenchmarkWriteLatency(b *testing.B) {
	p := open(b)
	pr := connect(b, p, rdmaAddr(b, p), defaults())
	cli, srv := &pr.cli, &pr.srv
	wr := verbs.SendWR{Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: cli.data.Addr(), Length: 8, LKey: cli.data.LKey()}},
		RemoteAddr: srv.data.Addr(), RKey: srv.data.RKey()}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		wr.WRID = uint64(i)
		if err := cli.qp.PostSend(wr); err != nil {
			b.Fatal(err)
		}
		spin(b, cli.cq, 1)
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "median-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1000, "p99-µs")
}

// BenchmarkWriteBW64K: 64 KiB RDMA WRITEs with up to 16 in flight.
func BenchmarkWriteBW64K(b *testing.B) {
	const size, window = 64 << 10, 16
	p := open(b)
	pr := connect(b, p, rdmaAddr(b, p), defaults())
	cli, srv := &pr.cli, &pr.srv
	src, err := cli.pd.RegMR(size, verbs.AccessLocalWrite)
	if err != nil {
		b.Fatal(err)
	}
	dst, err := srv.pd.RegMR(size, verbs.AccessLocalWrite|verbs.AccessRemoteWrite)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { src.Dereg(); dst.Dereg() })
	wr := verbs.SendWR{Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: src.Addr(), Length: size, LKey: src.LKey()}},
		RemoteAddr: dst.Addr(), RKey: dst.RKey()}
	b.SetBytes(size)
	b.ResetTimer()
	inflight := 0
	for i := 0; i < b.N; i++ {
		if inflight == window {
			spin(b, cli.cq, 1)
			inflight--
		}
		wr.WRID = uint64(i)
		if err := cli.qp.PostSend(wr); err != nil {
			b.Fatal(err)
		}
		inflight++
	}
	spin(b, cli.cq, inflight)
}

// BenchmarkPollEmpty: Poll(1) on a CQ with nothing in it, what a busy
// poller pays between completions (the Go side, the cgo call, rxe's
// rxe_poll_cq taking cq->lock and finding the queue empty).
func BenchmarkPollEmpty(b *testing.B) {
	p := open(b)
	pr := connect(b, p, rdmaAddr(b, p), defaults())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if wcs, err := pr.cli.cq.Poll(1); err != nil || len(wcs) != 0 {
			b.Fatalf("Poll: %v %v", wcs, err)
		}
	}
}
