package steps_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// TestSnapshotIsPure: Snapshot only copies. With the client's WRITE
// landed in the server's buffer and no step of the server since, two
// Snapshots of the server are equal and neither notes the change; only
// Sample does (the change times, the timeline).
func TestSnapshotIsPure(t *testing.T) {
	const msg = "looked at twice"
	p := newPair(t, steps.NotifySend, msg)
	checked := false
	p.pauseAfter = func(side steps.Role, id steps.StepID) {
		if side != steps.Client || id != steps.IDPostWrite {
			return
		}
		checked = true
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(string(p.srv.Snapshot().Data.Bytes), msg) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond) // the WRITE lands asynchronously
		}
		a, b := p.srv.Snapshot(), p.srv.Snapshot()
		if !reflect.DeepEqual(a, b) {
			t.Errorf("two Snapshots with nothing between differ:\n%+v\n%+v", a, b)
		}
		if changed(a.Data) {
			t.Error("Snapshot noted the WRITE's bytes changing: only Sample may")
		}
		p.srv.Sample(time.Now())
		if c := p.srv.Snapshot(); !changed(c.Data) {
			t.Error("after Sample the WRITE's bytes carry no change time")
		}
	}
	p.runTurns(t, -1)
	if !checked {
		t.Fatal("the client's post-write step did not run")
	}
}

// changed says some byte of buf has a change time.
func changed(buf steps.BufferState) bool {
	return !buf.LastChange().IsZero()
}
