package workshop_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
	"github.com/rdmatour/rdmatour/workshop"
)

// openTourRoom opens a workshop room running kind on the simulated NIC.
func openTourRoom(t testing.TB, kind steps.TourKind) (*workshop.Room, netip.AddrPort) {
	t.Helper()
	r, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), MaxAttendees: 60, IdleLimit: 20 * time.Second, Tour: kind})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, r.ListenAddr(0)
}

// tourClient is a client session of kind against addr.
func tourClient(t testing.TB, addr netip.AddrPort, kind steps.TourKind) *steps.Session {
	t.Helper()
	s, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}),
		Server: addr, Tour: kind, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runRoomClientUntil runs s's steps until the next one is stop ("" = to the end).
func runRoomClientUntil(ctx context.Context, s *steps.Session, stop steps.StepID) error {
	for s.Next() < len(s.Steps()) && (stop == "" || s.Steps()[s.Next()].ID != stop) {
		if _, err := s.RunNext(ctx); errors.Is(err, steps.ErrTourOver) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

// atomicOutcome is what one attendee's client saw.
type atomicOutcome struct{ faaOld, casOld uint64 }

// TestAtomicRoomSharesOneCounter: 20 attendees of an atomic room add to
// the one counter at once, then all try their CMP_AND_SWP. Every
// FETCH_AND_ADD found an old value of its own (40, 42, ... 78), the
// counter then holds 40 + 20×2; only the attendee whose add came last can
// still find what it expects, so exactly one swap happens and the counter
// ends at 1000; the roster shows each attendee's atomics and the counter,
// and the room is back to its baseline.
func TestAtomicRoomSharesOneCounter(t *testing.T) {
	r, addr := openTourRoom(t, steps.TourAtomic)
	ctx := context.Background()
	const n = 20
	clients := make([]*steps.Session, n)
	for i := range clients {
		clients[i] = tourClient(t, addr, steps.TourAtomic)
		defer clients[i].Close()
	}
	phase := func(stop steps.StepID) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i, s := range clients {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = runRoomClientUntil(ctx, s, stop) }()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
	}
	phase("post-cmp-swap") // everyone's FETCH_AND_ADD, at once
	if got := workshop.CounterLine(r.Counters()); got != fmt.Sprintf("counter %d", steps.CounterStart+n*steps.AtomicAdd) {
		t.Fatalf("after %d adds the room shows %q", n, got)
	}
	phase("") // everyone's CMP_AND_SWP, at once, and the rest
	outs := make([]atomicOutcome, n)
	for i, s := range clients {
		res := s.Snapshot().Result
		if res == nil {
			t.Fatalf("client %d has no result", i)
		}
		if _, err := fmt.Sscanf(string(res.Message), "fetch_add old=%d, cmp_swap old=%d", &outs[i].faaOld, &outs[i].casOld); err != nil {
			t.Fatalf("client %d result %q: %v", i, res.Message, err)
		}
	}
	checkSharedCounter(t, outs)
	waitEmpty(t, r)
	checkAcceptHandsOutCounter(t, r)
	checkAtomicRoster(t, r, outs)
	if r.Live() != r.Baseline() {
		t.Errorf("live objects %d, baseline %d: the attendees left something", r.Live(), r.Baseline())
	}
}

// checkSharedCounter: distinct FETCH_AND_ADD old values 40..78, and one
// swap, by the last adder.
func checkSharedCounter(t *testing.T, outs []atomicOutcome) {
	t.Helper()
	var faa []int
	swaps := 0
	for _, o := range outs {
		faa = append(faa, int(o.faaOld))
		last := o.faaOld == steps.CounterStart+uint64(len(outs)-1)*steps.AtomicAdd
		if o.casOld == o.faaOld+steps.AtomicAdd {
			swaps++
			if !last {
				t.Errorf("attendee with old %d swapped, but others had added after it", o.faaOld)
			}
		} else if o.casOld != steps.CounterStart+uint64(len(outs))*steps.AtomicAdd && o.casOld != steps.AtomicSwap {
			t.Errorf("a CMP_AND_SWP found %d: neither the counter after every add nor the swapped value", o.casOld)
		}
	}
	sort.Ints(faa)
	for i, v := range faa {
		if v != steps.CounterStart+i*steps.AtomicAdd {
			t.Fatalf("FETCH_AND_ADD old values %v: want each of 40, 42, ... once", faa)
		}
	}
	if swaps != 1 {
		t.Errorf("%d swaps, want exactly 1 (only the last adder's compare can hold)", swaps)
	}
}

// checkAtomicRoster: the header shows the final counter, each row what
// that attendee's atomics found, as the server's wire saw them.
func checkAtomicRoster(t *testing.T, r *workshop.Room, outs []atomicOutcome) {
	t.Helper()
	if got := workshop.CounterLine(r.Counts().Counters); got != fmt.Sprintf("counter %d", steps.AtomicSwap) {
		t.Errorf("roster header counter %q, want %d", got, steps.AtomicSwap)
	}
	want := map[string]bool{}
	for _, o := range outs {
		want[fmt.Sprintf("FETCH_ADD +%d → old %d · COMPARE_SWAP %d→%d → old %d", steps.AtomicAdd, o.faaOld, o.faaOld+steps.AtomicAdd, steps.AtomicSwap, o.casOld)] = true
	}
	rows := r.Roster()
	if len(rows) != len(outs) {
		t.Fatalf("%d roster rows for %d attendees", len(rows), len(outs))
	}
	for _, row := range rows {
		seen := row.Atomics
		if i := strings.LastIndex(seen, " ("); i > 0 {
			seen = seen[:i] // "(swapped)" / "(no swap)"
		}
		if !want[seen] || row.Phase != workshop.PhaseFinished || !strings.Contains(row.Observed.EN, "finished") {
			t.Errorf("row #%d: atomics %q, phase %v, observed %q; want one of the clients' own", row.N, row.Atomics, row.Phase, row.Observed.EN)
		}
		delete(want, seen)
	}
}

// TestRoomTurnsAwayAnotherTour: an attendee whose hello names another
// tour is rejected at once, and its client explains why and what to do.
func TestRoomTurnsAwayAnotherTour(t *testing.T) {
	for _, c := range []struct{ room, client steps.TourKind }{
		{steps.TourAtomic, steps.TourWrite}, {steps.TourWrite, steps.TourAtomic}, {steps.TourRead, steps.TourAtomic},
	} {
		t.Run(c.room.String()+"-room-"+c.client.String()+"-client", func(t *testing.T) {
			r, addr := openTourRoom(t, c.room)
			s := tourClient(t, addr, c.client)
			defer s.Close()
			err := runRoomClientUntil(context.Background(), s, "")
			en, zh := steps.ExplainIn(err, text.EN), steps.ExplainIn(err, text.ZH)
			want := fmt.Sprintf("this workshop runs --tour %s, you ran --tour %s: start again with --tour %s", c.room, c.client, c.room)
			if err == nil || !strings.Contains(en, want) || !strings.Contains(en, "runs one tour for every attendee") || !strings.Contains(zh, "同一种教程") {
				t.Fatalf("client error:\nen: %s\nzh: %s\nwant %q", en, zh, want)
			}
			if got := r.Counts(); got.TurnedAway != 1 || len(r.Roster()) != 0 {
				t.Errorf("counts %+v, roster %+v: want one turned away and nobody on the roster", got, r.Roster())
			}
		})
	}
}

// TestReadRoom: in a read room every attendee READs the server's message
// from a buffer of its own connection.
func TestReadRoom(t *testing.T) {
	r, addr := openTourRoom(t, steps.TourRead)
	const n = 5
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := tourClient(t, addr, steps.TourRead)
			defer s.Close()
			errs[i] = runRoomClientUntil(context.Background(), s, "")
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	waitEmpty(t, r)
	for _, row := range r.Roster() {
		if row.Phase != workshop.PhaseFinished || string(row.Message) != steps.ServerReadMessage {
			t.Errorf("row #%d: phase %v, message %q", row.N, row.Phase, row.Message)
		}
	}
	if c := r.Counts(); c.Finished != n || len(c.Counters) != 0 {
		t.Errorf("counts %+v: want %d finished and no shared counter in a read room", c, n)
	}
}

// TestRoomRefusesUD: the ud tour's datagrams do not come to a room.
func TestRoomRefusesUD(t *testing.T) {
	_, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), Tour: steps.TourUD})
	var ce *steps.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(ce.In(text.EN), "RDMA_PS_UDP") || !strings.Contains(ce.In(text.ZH), "不支持") {
		t.Fatalf("Open with the ud tour: %v", err)
	}
}

// checkAcceptHandsOutCounter: every attendee's accept hands out the
// room's one counter (8 bytes) in remote_info, as the Sessions the room
// still keeps (the last workshop.KeptSessions to leave) show.
func checkAcceptHandsOutCounter(t *testing.T, r *workshop.Room) {
	t.Helper()
	rkeys := map[string]bool{}
	kept := 0
	for _, a := range r.Attendees() {
		s := a.Session()
		if s == nil {
			continue
		}
		kept++
		for _, st := range s.Snapshot().Steps {
			if st.ID != "accept" || st.Outcome == nil {
				continue
			}
			for _, kv := range st.Outcome.Results {
				if kv.Name.EN == "counter" {
					rkeys[kv.Value.EN] = true
				}
			}
			if !strings.Contains(st.Outcome.Call, ".size_be = htonl(8)") {
				t.Errorf("#%d's remote_info does not give the counter's size:\n%s", a.N, st.Outcome.Call)
			}
		}
	}
	if kept < min(len(r.Attendees()), workshop.KeptSessions) {
		t.Errorf("%d attendees keep their Session, want the last %d", kept, workshop.KeptSessions)
	}
	if len(rkeys) != 1 {
		t.Errorf("the attendees' accepts handed out %d different counters, want the one: %v", len(rkeys), rkeys)
	}
}
