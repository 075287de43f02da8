package steps

import (
	"context"
	"net/netip"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestEveryResultNameHasChinese runs every tour, track and lesson on the
// simulated NIC and checks that every result a call shows has its name in
// both languages (a C name the same in both, as the glossary keeps them)
// and a value in English words only with its Chinese beside it.
func TestEveryResultNameHasChinese(t *testing.T) {
	type run struct {
		tour   TourKind
		notify Notify
		track  Track
		lesson string
	}
	var runs []run
	for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
		runs = append(runs, run{TourWrite, n, TrackCM, ""}, run{TourWrite, n, TrackManual, ""})
	}
	for _, k := range []TourKind{TourRead, TourAtomic, TourUD} {
		runs = append(runs, run{k, NotifySend, TrackCM, ""})
	}
	for _, l := range Lessons() {
		runs = append(runs, run{l.Tour, l.Notify, TrackCM, l.Name})
	}
	names := map[string]bool{}
	var missing, prose []string
	for _, r := range runs {
		for _, kv := range resultsOf(t, r.tour, r.notify, r.track, r.lesson) {
			if !names[kv.Name.EN] && !kv.Name.Bilingual() {
				missing = append(missing, kv.Name.EN)
			}
			names[kv.Name.EN] = true
			if kv.Value.ZH == "" && englishWords(kv) {
				prose = append(prose, kv.Name.EN+" = "+kv.Value.EN)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("result names with no Chinese (declare them in results.go with both): %q", missing)
	}
	if len(prose) > 0 {
		t.Errorf("result values in English words with no Chinese: %q", prose)
	}
	if len(names) < 10 {
		t.Errorf("only %d result names seen: the tours did not run", len(names))
	}
}

// resultsOf runs one demo on one simulated NIC and returns every result
// its steps showed.
func resultsOf(t *testing.T, tour TourKind, n Notify, track Track, lesson string) []KV {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nic := sim.New(quickTimeouts())
	srv, err := NewSession(Config{Role: Server, Tour: tour, Notify: n, Track: track, Lesson: lessonNamed(lesson), Provider: nic,
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out []KV
	collect := func(o Outcome) { out = append(out, o.Results...) }
	for _, st := range srv.Steps() {
		o, err := srv.RunNext(ctx)
		collect(o)
		if err != nil {
			t.Fatalf("%s/%s/%s server %s: %v", tour, n, lesson, st.ID, err)
		}
		if st.ID == IDListen {
			break
		}
	}
	addr, err := netip.ParseAddrPort(srv.Snapshot().CMID.Local)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := NewSession(Config{Role: Client, Tour: tour, Notify: n, Track: track, Lesson: lessonNamed(lesson), Provider: nic,
		Server: addr, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	sides := map[Role]*Session{Server: srv, Client: cli}
	for _, turn := range DemoPlan(srv.Steps(), cli.Steps()) {
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
// The peer's bytes, C library strings (ibv_wc_status_str, strerror),
// the --notify mode and command-line flags stay as they are.
func englishWords(kv KV) bool {
	switch kv.Name {
	case resBuffer, resNotice, resNotifiedBy, resStatus, resReturned, resEc, resPeerRuns, resHelloSent,
		resAnswerRecvBuf40, resMessageRecvBuf40:
		return false
	}
	if strings.HasSuffix(kv.Name.EN, "ah_attr") {
		return false // a C struct's fields
	}
	for _, w := range strings.FieldsFunc(kv.Value.EN, func(r rune) bool { return strings.ContainsRune(" ()[]{},;:=", r) }) {
		hex := strings.Trim(w, "abcdef") == "" // an address: ::ffff:127.0.0.1
		if len(w) >= 3 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" && !hex && w != "rkey" && w != "qkey" {
			return true
		}
	}
	return false
}
