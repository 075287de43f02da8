package exercise_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/exercise"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestEveryExerciseHasTwoWrongFixes: at least two each, named once, each
// a program of its own (neither the learner's nor the solution), each
// saying what sets its verdict apart.
func TestEveryExerciseHasTwoWrongFixes(t *testing.T) {
	for _, e := range exercise.Catalogue() {
		fixes := e.WrongFixes()
		if len(fixes) < 2 {
			t.Errorf("%s: %d wrong fixes, want at least 2", e.Name, len(fixes))
		}
		p := programs(t, e)
		seen := map[string]bool{p.Learner: true, p.Solution: true}
		for _, w := range fixes {
			src, err := e.WrongProgram(p.Learner, w)
			if err != nil {
				t.Errorf("%s/%s: %v", e.Name, w.Name, err)
				continue
			}
			if seen[src] {
				t.Errorf("%s/%s: the same program as another variant", e.Name, w.Name)
			}
			seen[src] = true
			if w.Real == "" || w.What.EN == "" || w.What.ZH == "" || (w.Sim != nil) != (w.OnSim != "") {
				t.Errorf("%s/%s: incomplete: %+v", e.Name, w.Name, w)
			}
		}
	}
}

// runOnSim plays the learner's program with rdmatour's own side in its
// role, edited as given, against rdmatour's side on the simulated NIC,
// and turns the run into check's evidence.
func runOnSim(t *testing.T, e exercise.Exercise, edits []string, src, solution string) exercise.Evidence {
	t.Helper()
	cfg := e.Options().Config()
	var err error
	if cfg.Edits, err = steps.ParseEdits(edits); err != nil {
		t.Fatalf("%s: %v", e.Name, err)
	}
	sides, _ := steps.RunPair(context.Background(), cfg, sim.New(sim.Options{}), sim.New(sim.Options{}))
	learner, peer := sides[e.Role], sides[e.Role.Peer()]
	if learner == nil || peer == nil {
		t.Fatalf("%s %v: a side did not start", e.Name, edits)
	}
	ls := learner.Snapshot()
	ev := exercise.Evidence{Peer: peer.Snapshot(), Source: src, Solution: solution, LastLine: ls.Err}
	if ls.Failed || !ls.Done {
		ev.ExitCode = 1
	}
	return ev
}

func verdictText(v exercise.Verdict) (en, zh string) {
	en, zh = v.Says.EN, v.Says.ZH
	for _, l := range v.Evidence {
		en += "\n" + l.EN
		zh += "\n" + l.ZH
	}
	return en, zh
}

// TestWrongFixVerdictsOnSim: each wrong fix the simulated NIC can play
// fails with its own evidence, in both languages, and points at the
// line that differs from a working program; it is not the unchanged
// program's verdict.
func TestWrongFixVerdictsOnSim(t *testing.T) {
	for _, e := range exercise.Catalogue() {
		p := programs(t, e)
		for _, w := range e.WrongFixes() {
			if w.Sim == nil {
				continue
			}
			src, _ := e.WrongProgram(p.Learner, w)
			v := e.Judge(runOnSim(t, e, w.Sim, src, p.Solution))
			en, zh := verdictText(v)
			if v.Pass || !strings.Contains(en, w.OnSim) || !strings.Contains(en, "where to look: "+e.FileName()) {
				t.Errorf("%s/%s: pass=%v, want a fail naming %q and where to look:\n%s", e.Name, w.Name, v.Pass, w.OnSim, en)
			}
			if !strings.Contains(zh, "未通过") || !strings.Contains(zh, "从这里看起") {
				t.Errorf("%s/%s: the Chinese verdict:\n%s", e.Name, w.Name, zh)
			}
		}
	}
}

// TestRKeyVerdict: the bad-rkey program's run on the simulated NIC (the
// lesson's edit plays it) gets the verdict the issue asks for: the NAK,
// the rkey sent and the server's, from the wire.
func TestRKeyVerdict(t *testing.T) {
	e, _ := exercise.Find("bad-rkey")
	p := programs(t, e)
	ev := runOnSim(t, e, []string{"client:post-write.rkey=lkey"}, p.Learner, p.Solution)
	v := e.Judge(ev)
	en, zh := verdictText(v)
	info := ev.Peer.Remote.Info
	var sent uint32
	for _, pk := range ev.Peer.Packets {
		if pk.RETH != nil && !pk.Outbound {
			sent = pk.RETH.RKey
		}
	}
	want := "the server's NIC answered your RDMA_WRITE_ONLY with NAK remote access error: the rkey 0x"
	if v.Pass || sent == 0 || sent == info.RKey || !strings.Contains(en, want) ||
		!strings.Contains(en, "rkey "+hex(sent)+" you sent is not the server's rkey "+hex(info.RKey)+", which came in remote_info") {
		t.Errorf("verdict (sent rkey %s, server's %s):\n%s", hex(sent), hex(info.RKey), en)
	}
	if !strings.Contains(zh, "NAK remote access error") || !strings.Contains(zh, "不是 server 的 rkey "+hex(info.RKey)) {
		t.Errorf("Chinese verdict:\n%s", zh)
	}
}

func hex(v uint32) string { return fmt.Sprintf("0x%x", v) }
