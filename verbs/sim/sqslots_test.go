package sim

import (
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// slotRun is what postEveryNth saw: how many WRITEs went in, the errno
// that stopped it (0: all did), and how many completions it polled.
type slotRun struct {
	posted int
	errno  syscall.Errno
	polled int
}

// stuckAfter is how long postEveryNth waits for a slot before it calls
// the queue full for good: far longer than the simulated ACK takes.
const stuckAfter = 300 * time.Millisecond

// postEveryNth posts k 8-byte WRITEs, the i-th (from 1) signaled when
// every > 0 and i%every == 0. A post refused with ENOMEM waits for a slot
// (polling the CQ if poll says so) and tries again; a queue that frees
// none within stuckAfter ends the run.
func postEveryNth(t *testing.T, cli *side, local, remote verbs.MR, k, every int, poll bool) slotRun {
	t.Helper()
	var run slotRun
	drain := func() {
		if !poll {
			return
		}
		wcs, err := cli.cq.Poll(16)
		must(t, err)
		for _, wc := range wcs {
			wantStatus(t, wc, wc.WRID, verbs.WCSuccess)
		}
		run.polled += len(wcs)
	}
	for i := 1; i <= k; i++ {
		wr := verbs.SendWR{WRID: uint64(i), Opcode: verbs.WRRDMAWrite, SGList: sge(local, 0, 8), RemoteAddr: remote.Addr(), RKey: remote.RKey()}
		if every > 0 && i%every == 0 {
			wr.Flags = verbs.SendSignaled
		}
		for end := time.Now().Add(stuckAfter); ; time.Sleep(time.Millisecond) {
			err := cli.qp.PostSend(wr)
			if err == nil {
				break
			}
			run.errno = err.(*verbs.Error).Errno
			if run.errno != syscall.ENOMEM || time.Now().After(end) {
				return run
			}
			drain()
		}
		run.errno = 0
		run.posted++
	}
	for end := time.Now().Add(stuckAfter); poll && every > 0 && run.polled < k/every && time.Now().Before(end); time.Sleep(time.Millisecond) {
		drain()
	}
	return run
}

// The slot rule, both profiles: rxe frees a slot when its WR is
// acknowledged (rxe_comp.c do_complete; measured:
// TestRxeSendQueueNeverSignaled), the strict profile when a completion
// of it or a later WR is polled (mlx5_poll_one's wq->tail). 28 WRITEs
// through 7 slots (max_send_wr 4, rxe's round-up).
func TestSendSlotsFreeByProfile(t *testing.T) {
	for _, tt := range []struct {
		name    string
		profile Profile
		every   int // 0: never signaled
		poll    bool
		want    slotRun
	}{
		{"rxe never signaled, never polled", ProfileRxe, 0, false, slotRun{posted: 28}},
		{"rxe every 4th, never polled", ProfileRxe, 4, false, slotRun{posted: 28}},
		{"rxe every 8th, polled", ProfileRxe, 8, true, slotRun{posted: 28, polled: 3}},
		{"strict never signaled, never polled", ProfileStrict, 0, false, slotRun{posted: 7, errno: syscall.ENOMEM}},
		{"strict never signaled, polled", ProfileStrict, 0, true, slotRun{posted: 7, errno: syscall.ENOMEM}},
		{"strict every 4th, never polled", ProfileStrict, 4, false, slotRun{posted: 7, errno: syscall.ENOMEM}},
		{"strict every 4th, polled", ProfileStrict, 4, true, slotRun{posted: 28, polled: 7}},
		{"strict every 7th (max_send_wr), polled", ProfileStrict, 7, true, slotRun{posted: 28, polled: 4}},
		{"strict every 8th (past max_send_wr), polled", ProfileStrict, 8, true, slotRun{posted: 7, errno: syscall.ENOMEM}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{opts: Options{Profile: tt.profile}, caps: smallSQ})
			remote, local := srv.regMR(t, 4096, rwAccess), cli.regMR(t, 64, verbs.AccessLocalWrite)
			a, err := cli.qp.Query()
			must(t, err)
			if a.Cap.MaxSendWR != 7 {
				t.Fatalf("max_send_wr 4 granted %d, want rxe's 7", a.Cap.MaxSendWR)
			}
			if got := postEveryNth(t, cli, local, remote, 28, tt.every, tt.poll); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// In the strict profile ibv_query_qp's outstanding count is the slots
// taken: WRITEs acknowledged long ago still count until a later
// completion is polled, and one poll frees everything up to its WR.
func TestStrictOutstandingUntilPolled(t *testing.T) {
	srv, cli := connectPair(t, pairCfg{opts: Options{Profile: ProfileStrict}, caps: smallSQ})
	remote, local := srv.regMR(t, 4096, rwAccess), cli.regMR(t, 64, verbs.AccessLocalWrite)
	outstanding := func() int {
		a, err := cli.qp.Query()
		must(t, err)
		return a.OutstandingSQ
	}
	if run := postEveryNth(t, cli, local, remote, 4, 4, false); run.posted != 4 {
		t.Fatalf("posted %+v", run)
	}
	wantStatus(t, pollN(t, cli.cq, 1)[0], 4, verbs.WCSuccess)
	if n := outstanding(); n != 0 {
		t.Errorf("after polling wr 4: outstanding %d, want 0", n)
	}
	if run := postEveryNth(t, cli, local, remote, 3, 0, false); run.posted != 3 {
		t.Fatalf("posted %+v", run)
	}
	time.Sleep(50 * time.Millisecond) // every ACK is in
	if n := outstanding(); n != 3 {
		t.Errorf("3 unsignaled WRITEs acknowledged, nothing polled: outstanding %d, want 3", n)
	}
	noMore(t, cli.cq)
}
