package workshop_test

import (
	"context"
	"fmt"
	"net/netip"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// BenchmarkRoomConnectToFinish50 is the wall time for 50 attendees
// connecting at once to one workshop room and finishing their tours (on
// the simulated NIC, clients in this process).
func BenchmarkRoomConnectToFinish50(b *testing.B) {
	const n = 50
	for b.Loop() {
		b.StopTimer()
		r, addr := openTestRoom(b, 100, 30*time.Second)
		b.StartTimer()
		runClients(b, addr, 0, n)
		for r.Counts().Finished < n {
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		r.Close()
		b.StartTimer()
	}
}

// BenchmarkRoom500Attendees runs 500 attendees (50 at a time) through one
// room and reports the live heap before the first and after the last
// (after a GC each time): an attendee that has left keeps its row, not
// its Session, so the heap comes back near the baseline (hostile review
// W6: 45 → 161 MB over 220 attendees when every Session was kept).
func BenchmarkRoom500Attendees(b *testing.B) {
	const n, batch = 500, 50
	for b.Loop() {
		b.StopTimer()
		r, addr := openTestRoom(b, 100, 30*time.Second)
		before := liveHeap()
		b.StartTimer()
		for start := 0; start < n; start += batch {
			runClients(b, addr, start, batch)
		}
		for r.Counts().Finished < n {
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		after := liveHeap()
		b.ReportMetric(float64(before)/(1<<20), "heap-MB-before")
		b.ReportMetric(float64(after)/(1<<20), "heap-MB-after")
		b.ReportMetric(float64(int64(after)-int64(before))/n/(1<<10), "heap-KB/attendee")
		r.Close()
		b.StartTimer()
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC() // the first may leave finalisers' objects for the second
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// runClients runs n whole client tours against addr at once, numbered
// from first, in the three notify modes in turn.
func runClients(b *testing.B, addr netip.AddrPort, first, n int) {
	var wg sync.WaitGroup
	for i := first; i < first+n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := runClient(context.Background(), addr, steps.Notify(i%3), fmt.Sprint("bench ", i), "", ""); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
}
