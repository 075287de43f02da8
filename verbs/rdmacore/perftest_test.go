//go:build linux && cgo

package rdmacore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	pt "github.com/rdmatour/rdmatour/perftest"
)

// TestPathAgainstPerftest runs perftest's ib_write_lat -s 8 and
// ib_write_bw -s 65536 on the device the other tests use, and
// BenchmarkWriteLatency and the same 64 KiB loop in this process, and logs
// FACT lines with the ratios issue 25 item 9 sets as targets: rdmatour's
// post->poll round trip within 1.1x of ib_write_lat's 2*t_typical, its
// 64 KiB bandwidth at least 0.95x ib_write_bw's BW average. Speed is
// measured here, not asserted: the test fails only when a tool or a
// benchmark cannot run. It needs RDMATOUR_PERFTEST=1 (about 40 s a round
// in a TCG guest) and the perftest binaries; RDMATOUR_PERFTEST_ROUNDS
// sets the rounds (5).
//
//	RDMATOUR_PERFTEST=1 scripts/qemu/run-in-guest.sh -- \
//	    /tmp/rdmacore.test -test.run TestPathAgainstPerftest -test.v
func TestPathAgainstPerftest(t *testing.T) {
	if os.Getenv("RDMATOUR_PERFTEST") == "" {
		t.Skip("set RDMATOUR_PERFTEST=1 to compare against ib_write_lat/ib_write_bw")
	}
	for _, tool := range []string{"ib_write_lat", "ib_write_bw"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (perftest)", tool)
		}
	}
	rounds := 5
	if n, err := strconv.Atoi(os.Getenv("RDMATOUR_PERFTEST_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	p := open(t)
	addr := rdmaAddr(t, p)
	dev := deviceOf(t, p, addr)
	// Soft-RoCE under TCG is noisy from one run to the next, and the host
	// drifts within a boot: each round runs perftest and rdmatour back to
	// back and has its own ratios, and every other round rdmatour goes
	// first, so that a drift favours neither.
	var lat, bw []float64
	for round := 1; round <= rounds; round++ {
		r := perftestRound(t, round, dev, addr.String(), round%2 == 0)
		lat, bw = append(lat, r.lat), append(bw, r.bw)
	}
	t.Logf("FACT %d rounds on %s: latency median/(2*t_typical) median %.2fx, %d of %d rounds within 1.10x; bandwidth ours/ib_write_bw median %.2fx, %d of %d rounds at 0.95x or more",
		rounds, dev, median(lat), count(lat, func(v float64) bool { return v <= 1.10 }), rounds,
		median(bw), count(bw, func(v float64) bool { return v >= 0.95 }), rounds)
}

// roundRatios are one round's two target ratios.
type roundRatios struct{ lat, bw float64 }

// bwOps is how many 64 KiB WRITEs each bandwidth leg makes; a round runs
// four legs, ABBA (perftest, rdmatour, rdmatour, perftest, or the other
// way round), so that a drift of the host within the round cancels.
const bwOps = 2500

// perftestRound is ib_write_lat, ib_write_bw -t 1 and the window loop in
// C, BenchmarkWriteLatency and BenchmarkWriteWindow8 here (the C ones
// first unless oursFirst), then the four 64 KiB bandwidth legs, and their
// FACT lines.
func perftestRound(t *testing.T, round int, dev, addr string, oursFirst bool) roundRatios {
	var lat, one, win perfRow
	var rl, rw testing.BenchmarkResult
	theirs := func() {
		lat = perftest(t, "ib_write_lat", dev, addr, "-s", "8", "-n", "20000")
		// ib_write_bw with one WR in flight and a completion for each does
		// what BenchmarkWriteLatency does, in C: post, poll the CQ until
		// the completion, post the next; 1/MsgRate is its post->poll time.
		one = perftest(t, "ib_write_bw", dev, addr, "-s", "8", "-n", "20000", "-t", "1", "-Q", "1")
		win = perftest(t, "ib_write_bw", dev, addr, "-s", "8", "-n", "5000", "-t", "7", "-Q", "4")
	}
	mine := func() {
		rl = testing.Benchmark(BenchmarkWriteLatency)
		rw = testing.Benchmark(BenchmarkWriteWindow8)
	}
	if oursFirst {
		mine()
		theirs()
	} else {
		theirs()
		mine()
	}
	if rl.N == 0 || rw.N == 0 {
		t.Fatal("a benchmark failed (run it alone with -test.bench for its error)")
	}
	bwTheirs, bwOurs := bandwidthLegs(t, dev, addr, oursFirst)
	typ, avg := lat.num(t, "t_typical[usec]"), lat.num(t, "t_avg[usec]")
	cOne := 1 / one.num(t, "MsgRate[Mpps]") // µs per WRITE
	med, p99 := rl.Extra["median-µs"], rl.Extra["p99-µs"]
	t.Logf("FACT round %d (%s first) perftest %s: ib_write_lat -s 8: t_typical %.2f µs t_avg %.2f µs one-way (round trip %.2f / %.2f); ib_write_bw -s 8 -t 1: %.2f µs per WRITE; ib_write_bw -s 65536 -n %d -t %d, two legs: %.1f MiB/s",
		round, first(oursFirst), dev, typ, avg, 2*typ, 2*avg, cOne, bwOps, bwWindow, bwTheirs)
	t.Logf("FACT round %d rdmatour %s: WRITE 8 B post->poll median %.2f µs p99 %.2f µs (%d ops, %d allocs/op, %d B/op); WRITE 64 KiB x%d in flight, two legs of %d: %.1f MiB/s",
		round, dev, med, p99, rl.N, rl.AllocsPerOp(), rl.AllocedBytesPerOp(), bwWindow, bwOps, bwOurs)
	cWin := 1 / win.num(t, "MsgRate[Mpps]")
	oursWin := float64(rw.T.Nanoseconds()) / 1e3 / float64(rw.N)
	t.Logf("FACT round %d window of 7, every 4th signaled, 8 B: ib_write_bw -t 7 -Q 4 %.2f µs per WRITE, BenchmarkWriteWindow8 %.2f µs (%d ops, %d allocs/op): ratio %.2fx",
		round, cWin, oursWin, rw.N, rw.AllocsPerOp(), oursWin/cWin)
	r := roundRatios{lat: med / (2 * typ), bw: bwOurs / bwTheirs}
	t.Logf("FACT round %d ratio latency: median/(2*t_typical) %.2fx (target <= 1.10), median/(2*t_avg) %.2fx, median/(ib_write_bw -t 1) %.2fx; bandwidth: ours/ib_write_bw %.2fx (target >= 0.95)",
		round, r.lat, med/(2*avg), med/cOne, r.bw)
	return r
}

// bandwidthLegs runs ib_write_bw and writeBW64K twice each, ABBA, and
// returns each side's bandwidth over its two legs (bytes over time), in
// MiB/s.
func bandwidthLegs(t *testing.T, dev, addr string, oursFirst bool) (theirs, ours float64) {
	var tTheirs, tOurs float64 // seconds
	leg := func(mine bool) {
		if mine {
			tOurs += bwBytes / (bwMiBps(t, bwOps) * (1 << 20))
			return
		}
		row := perftest(t, "ib_write_bw", dev, addr, "-s", fmt.Sprint(bwSize), "-n", fmt.Sprint(bwOps), "-t", fmt.Sprint(bwWindow))
		tTheirs += bwBytes / (row.num(t, "BW average[MB/sec]") * (1 << 20))
	}
	for _, mine := range []bool{oursFirst, !oursFirst, !oursFirst, oursFirst} {
		leg(mine)
	}
	return 2 * bwBytes / tTheirs / (1 << 20), 2 * bwBytes / tOurs / (1 << 20)
}

const bwBytes = float64(bwSize) * bwOps

// bwMiBps is writeBW64K's bandwidth over n WRITEs on a fresh connection,
// in perftest's MiB/s (its MB is 2^20 bytes: MBS format_factor 0x100000).
func bwMiBps(t *testing.T, n int) float64 {
	p := open(t)
	pr := connect(t, p, rdmaAddr(t, p), defaults())
	d := writeBW64K(t, pr, n)
	return float64(bwSize) * float64(n) / d.Seconds() / (1 << 20)
}

func first(oursFirst bool) string {
	if oursFirst {
		return "rdmatour"
	}
	return "perftest"
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func count(v []float64, ok func(float64) bool) int {
	n := 0
	for _, x := range v {
		if ok(x) {
			n++
		}
	}
	return n
}

// deviceOf names the device that has addr as an IPv4-mapped GID.
func deviceOf(t *testing.T, p *Provider, addr interface{ String() string }) string {
	t.Helper()
	devs, err := p.Devices()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range devs {
		for _, pa := range d.Ports {
			for _, g := range pa.GIDs {
				if g.GID.Is4In6() && g.GID.Unmap().String() == addr.String() {
					return d.Name
				}
			}
		}
	}
	t.Fatalf("no device has GID %s", addr)
	return ""
}

// perftest runs tool as a server and then as a client of it on dev over
// rdma_cm (-R), and returns the client's result table.
func perftest(t *testing.T, tool, dev, addr string, args ...string) perfRow {
	t.Helper()
	// A perftest pair under TCG now and then never finishes (once in 30
	// runs on 2026-12-07: ib_write_bw -t 1 still running after 3 min, its
	// usual 1 s); such a run is killed and made again on a fresh port.
	var out pt.Pair
	var err error
	for try := 1; try <= 2; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		common := append([]string{tool, "-R", "-d", dev, "-p", strconv.Itoa(int(port()))}, args...)
		out, err = pt.RunPair(ctx, common, append(common, addr), pt.GuestTiming())
		cancel()
		if err == nil {
			break
		}
		t.Logf("%s %s, try %d: %v", tool, strings.Join(args, " "), try, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %s:\n%s", tool, strings.Join(args, " "), out.Client)
	row, err := pt.Parse(out.Client)
	if err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, out.Client)
	}
	return perfRow(row)
}

// perfRow is one result line of a perftest table; num fails the test on
// a column that is not a number.
type perfRow pt.Row

func (r perfRow) num(t *testing.T, col string) float64 {
	t.Helper()
	v, err := pt.Row(r).Num(col)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
