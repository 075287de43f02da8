package pane

import (
	"context"
	"net/netip"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestEveryResultNameHasChinese runs every tour, track and lesson on the
// simulated NIC and checks that the name of every result a call shows is
// either a C name (kept, as the glossary keeps them) or has Chinese.
func TestEveryResultNameHasChinese(t *testing.T) {
	type run struct {
		notify steps.Notify
		track  steps.Track
		lesson string
	}
	var runs []run
	for _, n := range []steps.Notify{steps.NotifySend, steps.NotifyDoorbell, steps.NotifyImm} {
		runs = append(runs, run{n, steps.TrackCM, ""}, run{n, steps.TrackManual, ""})
	}
	for _, l := range steps.Lessons() {
		runs = append(runs, run{l.Notify, steps.TrackCM, l.Name})
	}
	names := map[string]bool{}
	var prose []string // values in English words with no Chinese
	for _, r := range runs {
		for _, kv := range resultsOf(t, r.notify, r.track, r.lesson) {
			names[kv.Name] = true
			if _, ok := resultValuesZH[kv.Value]; !ok && englishWords(kv) {
				prose = append(prose, kv.Name+" = "+kv.Value)
			}
		}
	}
	if len(prose) > 0 {
		t.Errorf("result values in English words (add them to resultValuesZH): %q", prose)
	}
	var missing []string
	for n := range names {
		if _, ok := resultNamesZH[n]; !ok && !isCName(n) {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("result names with no Chinese (add them to resultNamesZH): %q", missing)
	}
	if len(names) < 10 {
		t.Errorf("only %d result names seen: the tours did not run", len(names))
	}
}

// resultsOf runs one demo on one simulated NIC and returns every result
// its steps showed.
func resultsOf(t *testing.T, n steps.Notify, track steps.Track, lesson string) []steps.KV {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nic := sim.New(sim.Options{})
	srv, err := steps.NewSession(steps.Config{Role: steps.Server, Notify: n, Track: track, Lesson: lessonNamed(lesson), Provider: nic,
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out []steps.KV
	collect := func(o steps.Outcome) { out = append(out, o.Results...) }
	for _, st := range srv.Steps() {
		o, err := srv.RunNext(ctx)
		collect(o)
		if err != nil {
			t.Fatalf("%s/%s server %s: %v", n, lesson, st.ID, err)
		}
		if strings.HasPrefix(string(st.ID), "listen") {
			break
		}
	}
	addr, err := netip.ParseAddrPort(srv.Snapshot().CMID.Local)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := steps.NewSession(steps.Config{Role: steps.Client, Notify: n, Track: track, Lesson: lessonNamed(lesson), Provider: nic,
		Server: addr, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	sides := map[steps.Role]*steps.Session{steps.Server: srv, steps.Client: cli}
	for _, turn := range steps.DemoPlan(srv.Steps(), cli.Steps()) {
		s := sides[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		o, err := s.RunNext(ctx)
		collect(o)
		if err != nil {
			break // a failure ends the tour; its results are collected
		}
	}
	return out
}

// englishWords says a result's value has English words a zh screen
// should not show: what is left after C names, numbers and addresses.
// The peer's bytes, C library strings (ibv_wc_status_str, strerror) and
// the --notify mode stay as they are.
func englishWords(kv steps.KV) bool {
	switch kv.Name {
	case "buffer", "notice", "notified by", "status", "returned", "ec", "ah_attr",
		"peer runs", "hello sent": // command-line flags: --tour write, --lesson NAME

		return false
	}
	for _, w := range strings.FieldsFunc(kv.Value, func(r rune) bool { return strings.ContainsRune(" ()[]{},;:=", r) }) {
		if len(w) >= 3 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" && !isCName(w) && w != "rkey" {
			return true
		}
	}
	return false
}
