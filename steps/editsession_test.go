package steps_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// The front end's side of the API: Editable lists a step's fields with
// their values, SetEdit changes one before the step runs and never after,
// ClearEdit puts it back, and Config().Edits is what Try next and a
// recording see.
func TestSessionEdits(t *testing.T) {
	s, err := steps.NewSession(steps.Config{Role: steps.Server, Provider: sim.New(sim.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Editable(steps.IDPostWrite) != nil {
		t.Error("the server offers the client's post-write")
	}
	fields := s.Editable(steps.IDRegMRData)
	if len(fields) != 2 || fields[1].Name != "length" || fields[1].Default != "4096" || fields[0].Default != "IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE" || fields[0].Edited {
		t.Fatalf("reg-mr-data fields %+v", fields)
	}
	e, err := steps.ParseEditFor(fields[0], "-REMOTE_WRITE")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetEdit(e); err != nil {
		t.Fatal(err)
	}
	if f := s.Editable(steps.IDRegMRData)[0]; !f.Edited || f.Current != "-REMOTE_WRITE" {
		t.Errorf("after SetEdit: %+v", f)
	}
	if got := s.Config().Edits.Strings(); len(got) != 1 || got[0] != "reg-mr-data.access=-REMOTE_WRITE" {
		t.Errorf("Config().Edits = %v", got)
	}
	s.ClearEdit(steps.IDRegMRData, "access")
	if f := s.Editable(steps.IDRegMRData)[0]; f.Edited || len(s.Edits()) != 0 {
		t.Errorf("after ClearEdit: %+v, %v", f, s.Edits())
	}
	// A step that ran is not edited any more.
	sides, err := steps.RunPair(context.Background(), steps.Config{}, sim.New(sim.Options{}), sim.New(sim.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	ran, _ := steps.ParseEdit("create-cq.cqe=4")
	if err := sides[steps.Client].SetEdit(ran); err == nil || !strings.Contains(err.Error(), "already run") {
		t.Errorf("create-cq after the tour: %v", err)
	}
	wrong, _ := steps.ParseEdit("client:create-cq.cqe=4")
	var ee *steps.EditError
	if err := s.SetEdit(wrong); !errors.As(err, &ee) || !strings.Contains(err.Error(), "for the client") {
		t.Errorf("a client edit on the server: %v", err)
	}
	missing, _ := steps.ParseEdit("post-write.rkey=+1")
	if err := s.SetEdit(missing); !errors.As(err, &ee) || !strings.Contains(err.Error(), "rdmatour client") {
		t.Errorf("post-write on the server: %v", err)
	}
}

// A data MR longer than this process may pin is refused with the reason,
// before anything is registered: at the command line (CheckEdits), when
// the session is made, and from the form (SetEdit).
func TestMRLengthAboveMemlockIsRefused(t *testing.T) {
	cfg := steps.Config{Role: steps.Server, Provider: sim.New(sim.Options{}), MemlockLimit: 64 << 10}
	long, _ := steps.ParseEdit("reg-mr-data.length=1048576")
	fits, _ := steps.ParseEdit("reg-mr-data.length=8192")
	var ee *steps.EditError
	if err := steps.CheckEdits(cfg, steps.Edits{long}, steps.Server); !errors.As(err, &ee) || !strings.Contains(err.Error(), "RLIMIT_MEMLOCK") {
		t.Errorf("CheckEdits: %v", err)
	}
	withLong := cfg
	withLong.Edits = steps.Edits{long}
	if _, err := steps.NewSession(withLong); !errors.As(err, &ee) || !strings.Contains(err.Error(), "ulimit -l") {
		t.Errorf("NewSession: %v", err)
	}
	s, err := steps.NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetEdit(long); !errors.As(err, &ee) {
		t.Errorf("SetEdit: %v", err)
	}
	if err := s.SetEdit(fits); err != nil {
		t.Errorf("SetEdit of a length under the limit: %v", err)
	}
	if _, err := steps.ParseEdit("reg-mr-data.length=1099511627776"); !errors.As(err, &ee) || !strings.Contains(err.Error(), "1 TB") {
		t.Errorf("a 1 TB MR: %v", err)
	}
}
