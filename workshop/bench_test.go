package workshop_test

import (
	"context"
	"fmt"
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
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := runClient(context.Background(), addr, steps.Notify(i%3), fmt.Sprint("bench ", i), "", ""); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		for r.Counts().Finished < n {
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		r.Close()
		b.StartTimer()
	}
}
