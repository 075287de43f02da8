package verbs

import (
	"runtime"
	"time"
)

// Spinner paces a busy-polling loop: call Tick once per turn. Go's
// sysmon preempts a goroutine that runs 10 ms without rescheduling, and
// each preemption resets its back-off to waking every 20 µs; a loop
// that spins on a CQ for seconds keeps it there, thousands of wake-ups a
// second that take the CPU the device's own work needs. Tick yields the
// processor (runtime.Gosched) once per yieldAfter, reading the clock
// once per 16 turns. Measured in a TCG guest, BenchmarkWriteLatency on
// rxe0, 40000 WRITEs, three runs each (2026-12-07):
//
//	yield every    nanosleeps    futex calls   context switches  CPU ms
//	never          2882-3135     347-885       3887-4359         2384-2851
//	2 ms           585-748       1039-1239     1732-2121         1952-2496
//	5 ms           424-724       521-589       1294-1754         1894-2177
//	8 ms           489-602       396-417       1382-1504         1563-1900
//
// A yield wakes an idle processor's thread (the futex calls), so it is
// made as seldom as sysmon allows.
type Spinner struct {
	turns int
	last  time.Time
}

// yieldAfter is under sysmon's 10 ms forcePreemptNS.
const yieldAfter = 8 * time.Millisecond

// Tick is one turn of the loop.
func (s *Spinner) Tick() {
	if s.turns++; s.turns&15 != 0 {
		return
	}
	now := time.Now()
	if s.last.IsZero() {
		s.last = now
		return
	}
	if now.Sub(s.last) >= yieldAfter {
		runtime.Gosched()
		s.last = now
	}
}
