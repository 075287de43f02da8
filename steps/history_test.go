package steps_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestStepSnapshotsShowEachStepAsItWas: after a whole tour, each finished
// step's snapshot is the state right after it — the server's buffer is
// empty before the client's WRITE and holds the message after it, the
// QP state is the one of that moment — and unfinished steps have none.
func TestStepSnapshotsShowEachStepAsItWas(t *testing.T) {
	const msg = "looking back"
	p := newPair(t, steps.NotifySend, msg)
	if _, ok := p.srv.StepSnapshot(p.serverListenStep); ok {
		t.Fatal("a snapshot for a step that has not run")
	}
	// Note the server's step index when the client's WRITE ran.
	var srvDoneBeforeWrite = -1
	p.pauseAfter = func(side steps.Role, id steps.StepID) {
		if side == steps.Client && id == "post-write" {
			srvDoneBeforeWrite = p.srv.Next() - 1
		}
	}
	p.runTurns(t, -1)
	if srvDoneBeforeWrite < 0 {
		t.Fatal("the client's post-write step did not run")
	}
	for _, s := range []*steps.Session{p.srv, p.cli} {
		for i, st := range s.Steps() {
			snap, ok := s.StepSnapshot(i)
			if !ok {
				t.Fatalf("%s step %d %s: no snapshot", s.Config().Role, i, st.ID)
			}
			if snap.Next != i+1 || snap.Steps[i].State != steps.Succeeded || snap.Steps[i].Outcome == nil {
				t.Errorf("%s step %d %s: snapshot has next=%d state=%v", s.Config().Role, i, st.ID, snap.Next, snap.Steps[i].State)
			}
			if i+1 < len(s.Steps()) && snap.Steps[i+1].Outcome != nil {
				t.Errorf("%s step %d: the snapshot knows the next step's outcome", s.Config().Role, i)
			}
		}
	}
	before, _ := p.srv.StepSnapshot(srvDoneBeforeWrite)
	if strings.Contains(string(before.Data.Bytes), msg) {
		t.Errorf("server step %d, before the client's WRITE, already shows the message", srvDoneBeforeWrite)
	}
	last, _ := p.srv.StepSnapshot(len(p.srv.Steps()) - 2) // the step before teardown
	if !strings.Contains(string(last.Data.Bytes), msg) {
		t.Errorf("the server's last steps do not show the written message")
	}
	if before.QP == nil || last.QP == nil || before.QP.Attr.State == last.QP.Attr.State {
		t.Errorf("QP state did not change between the snapshots: %+v / %+v", before.QP, last.QP)
	}
}

// TestStepSnapshotsShareWhatDidNotChange: history costs memory only for
// what changed — an unchanged data buffer (4 KiB and 4096 timestamps) is
// the previous step's.
func TestStepSnapshotsShareWhatDidNotChange(t *testing.T) {
	p := newPair(t, steps.NotifySend, "shared")
	p.runTurns(t, -1)
	n := len(p.cli.Steps())
	var shared, copies int
	for i := 1; i < n; i++ {
		a, _ := p.cli.StepSnapshot(i - 1)
		b, _ := p.cli.StepSnapshot(i)
		if len(a.Data.Bytes) == 0 || len(b.Data.Bytes) == 0 {
			continue
		}
		// Changes are nil until a byte of the buffer changes.
		sameTimes := len(a.Data.Changes) == len(b.Data.Changes) && (len(a.Data.Changes) == 0 || &a.Data.Changes[0] == &b.Data.Changes[0])
		if &a.Data.Bytes[0] == &b.Data.Bytes[0] && sameTimes {
			shared++
		} else {
			copies++
		}
	}
	// The client's buffer changes twice (the message is written into it
	// before post-write, then nothing changes it); everything else shares.
	t.Logf("client history: %d steps, data buffer shared %d times, copied %d times (each copy ~%d KiB)", n, shared, copies, (4096+4096*24)/1024)
	if shared == 0 || copies > 2 {
		t.Errorf("data buffers: %d shared, %d copies; want nearly all shared", shared, copies)
	}
}

// TestHistoryAfterAFailedStep: the failed step has its snapshot too,
// marked failed, with the learner's explanation.
func TestHistoryAfterAFailedStep(t *testing.T) {
	s, err := steps.NewSession(steps.Config{Role: steps.Server, Provider: sim.New(sim.Options{}),
		Bind: netip.AddrPortFrom(loopback, 0), AcceptTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var failedAt int
	for {
		failedAt = s.Next()
		if _, err := s.RunNext(context.Background()); err != nil {
			break
		}
	}
	snap, ok := s.StepSnapshot(failedAt)
	if !ok {
		t.Fatalf("no snapshot for the failed step %d", failedAt)
	}
	if !snap.Failed || snap.Steps[failedAt].State != steps.FailedState || !strings.Contains(snap.Err, "no client connected") {
		t.Errorf("failed step's snapshot: failed=%v state=%v err=%q", snap.Failed, snap.Steps[failedAt].State, snap.Err)
	}
	if _, ok := s.StepSnapshot(failedAt + 1); ok {
		t.Error("a snapshot for a step after the failure")
	}
}
