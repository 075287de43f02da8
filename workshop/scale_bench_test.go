package workshop_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
	"github.com/rdmatour/rdmatour/workshop"
)

// Scale (issue 23 item 8): 200 attendees on the simulated NIC from one
// laptop. The attendees run in a child process (this test binary again,
// TestScaleAttendees), so that this process's heap and CPU are the
// room's alone.

const scaleN = 200

// BenchmarkRoom200InRoom: the room's live heap per attendee while 200
// are in it, each held before its WRITE (connected, RECV posted, MRs
// registered, their steps so far on the server's side).
func BenchmarkRoom200InRoom(b *testing.B) { benchInRoom(b, "hold", "connected") }

// BenchmarkRoom200Written: the same with each attendee held after their
// WRITE landed, before their SEND (the server's buffer changed: its
// change times are kept, the most an attendee holds while in the room;
// once the SEND has come, the server's side hangs up and frees it all).
func BenchmarkRoom200Written(b *testing.B) { benchInRoom(b, "hold-written", "connected") }

func benchInRoom(b *testing.B, mode, phase string) {
	for b.Loop() {
		r, addr := openTestRoom(b, scaleN+10, 60*time.Second)
		before := liveHeap()
		child, lines := attendees(b, addr, mode)
		for r.Counts().Connected < scaleN || !allReached(r, phase) {
			time.Sleep(20 * time.Millisecond)
		}
		<-lines // the child says all are held
		after := liveHeap()
		b.ReportMetric(float64(int64(after)-int64(before))/scaleN/(1<<10), "heap-KB/attendee")
		if path := os.Getenv("RDMATOUR_HEAP_PROFILE"); path != "" { // go tool pprof -sample_index=inuse_space
			if f, err := os.Create(path); err == nil {
				pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
		child.Process.Kill()
		child.Wait()
		r.Close()
	}
}

// BenchmarkRoom200CPU: the room's CPU time per attendee for 200 whole
// tours, against a room's for one (one tour's server side).
func BenchmarkRoom200CPU(b *testing.B) {
	for b.Loop() {
		one := roomCPU(b, 1)
		all := roomCPU(b, scaleN)
		b.ReportMetric(float64(one.Microseconds())/1000, "ms-CPU-one-tour")
		b.ReportMetric(float64(all.Microseconds())/1000/scaleN, "ms-CPU/attendee")
	}
}

// roomCPU is this process's CPU time (user + system) while n attendees
// run whole tours through a room.
func roomCPU(b *testing.B, n int) time.Duration {
	r, addr := openTestRoom(b, scaleN+10, 60*time.Second)
	defer r.Close()
	start := cpuTime()
	child, _ := attendeesN(b, addr, "whole", n)
	child.Wait()
	for r.Counts().Finished < n {
		time.Sleep(5 * time.Millisecond)
	}
	return cpuTime() - start
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func allReached(r *workshop.Room, phase string) bool {
	for _, row := range r.Roster() {
		if row.Phase.String() != phase {
			return false
		}
	}
	return true
}

func attendees(b testing.TB, addr netip.AddrPort, mode string) (*exec.Cmd, <-chan string) {
	return attendeesN(b, addr, mode, scaleN)
}

// attendeesN starts the child that runs n attendees against addr; its
// stdout lines come on the channel.
func attendeesN(b testing.TB, addr netip.AddrPort, mode string, n int) (*exec.Cmd, <-chan string) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestScaleAttendees$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RDMATOUR_SCALE="+mode+" "+addr.String()+" "+strconv.Itoa(n))
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, out)
	}()
	return cmd, lines
}

// TestScaleAttendees is the benchmarks' child: n attendees, each a whole
// tour ("whole") or held before its WRITE until the process is killed
// ("hold"). Skipped unless RDMATOUR_SCALE says which.
func TestScaleAttendees(t *testing.T) {
	var mode, addr string
	var n int
	if _, err := fmt.Sscan(os.Getenv("RDMATOUR_SCALE"), &mode, &addr, &n); err != nil {
		t.Skip("the scale benchmarks' child process")
	}
	ap := netip.MustParseAddrPort(addr)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			switch mode {
			case "hold":
				err = holdClient(ap, fmt.Sprint("scale ", i), steps.IDPostWrite)
			case "hold-written":
				err = holdClient(ap, fmt.Sprint("scale ", i), steps.IDPostSend)
			default:
				err = runClientOn(context.Background(), crowdNIC(), ap, steps.NotifySend, fmt.Sprint("scale ", i), "", "")
			}
			if err != nil {
				t.Error(err)
			}
		}()
		if i%20 == 19 {
			time.Sleep(50 * time.Millisecond) // a class arrives over seconds, not in one instant
		}
	}
	wg.Wait()
	if mode != "whole" {
		fmt.Println("held")
		select {} // the benchmark kills this process
	}
}

// holdClient runs a client tour up to the step before and leaves it
// there, connected.
func holdClient(addr netip.AddrPort, msg string, before steps.StepID) error {
	s, err := steps.NewSession(steps.Config{Role: steps.Client, Notify: steps.NotifySend, Provider: sim.New(crowdNIC()),
		Server: addr, Message: msg, Timeout: 60 * time.Second})
	if err != nil {
		return err
	}
	for s.Steps()[s.Next()].ID != before {
		if _, err := s.RunNext(context.Background()); err != nil {
			return err
		}
	}
	return nil
}
