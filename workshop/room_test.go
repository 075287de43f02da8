package workshop_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
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

// openTestRoom opens a workshop room on the simulated NIC on loopback.
func openTestRoom(t testing.TB, max int, idle time.Duration) (*workshop.Room, netip.AddrPort) {
	t.Helper()
	r, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), MaxAttendees: max, IdleLimit: idle})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	addr := r.ListenAddr(0)
	return r, addr
}

// runClient runs a whole client tour against addr and returns its error.
func runClient(ctx context.Context, addr netip.AddrPort, n steps.Notify, msg, lesson string, stopBefore steps.StepID) error {
	return runClientOn(ctx, sim.Options{}, addr, n, msg, lesson, stopBefore)
}

// crowdNIC is the simulated NIC of a client among many at once: on a
// loaded machine (-race, other packages' tests) the room can take longer
// than the sim's default 5 s CM timeout to answer fifty REQs, and a
// client that gives up then is a failure of the test, not of the room.
func crowdNIC() sim.Options { return sim.Options{CMTimeout: 60 * time.Second} }

// runClientOn is runClient with a client NIC of opts.
func runClientOn(ctx context.Context, opts sim.Options, addr netip.AddrPort, n steps.Notify, msg, lesson string, stopBefore steps.StepID) error {
	var l *steps.Lesson
	if lesson != "" {
		var err error
		if l, err = steps.ParseLesson(lesson); err != nil {
			return err
		}
	}
	s, err := steps.NewSession(steps.Config{Role: steps.Client, Notify: n, Provider: sim.New(opts),
		Server: addr, Message: msg, Lesson: l, Timeout: 20 * time.Second})
	if err != nil {
		return err
	}
	defer s.Close()
	for {
		if stopBefore != "" && s.Steps()[s.Next()].ID == stopBefore {
			return nil // vanish: Close without finishing
		}
		if _, err := s.RunNext(ctx); err == steps.ErrTourOver {
			return nil
		} else if err != nil {
			return err
		}
		if done, _ := s.Done(); done {
			return nil
		}
	}
}

// waitRoster waits until the room has had n attendees.
func waitRoster(t testing.TB, r *workshop.Room, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(r.Roster()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the room has %d attendees, want %d: %+v", len(r.Roster()), n, r.Roster())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitEmpty waits until nobody is connected to the room.
func waitEmpty(t testing.TB, r *workshop.Room) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for r.Counts().Connected > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("attendees still connected: %+v", r.Roster())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRoomServesEveryoneAtOnce: 50 clients with distinct messages, in all
// three notify modes, plus garbage connections and clients that vanish
// mid-tour and one that runs the bad-rkey lesson: every message lands,
// the others are unaffected, and the room is back to its baseline.
func TestRoomServesEveryoneAtOnce(t *testing.T) {
	r, addr := openTestRoom(t, 100, 5*time.Second)
	ctx := context.Background()
	const n = 50
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = runClientOn(ctx, crowdNIC(), addr, steps.Notify(i%3), fmt.Sprintf("attendee %02d says hi", i), "", "")
		}()
	}
	for i := 0; i < 3; i++ { // garbage on the port
		if c, err := net.Dial("tcp", addr.String()); err == nil {
			c.Write([]byte("GET / HTTP/1.0\r\n\r\n\x1b[2J"))
			c.Close()
		}
	}
	wg.Add(3)
	go func() {
		defer wg.Done()
		runClientOn(ctx, crowdNIC(), addr, steps.NotifySend, "vanish", "", "post-write")
	}()
	go func() {
		defer wg.Done()
		runClientOn(ctx, crowdNIC(), addr, steps.NotifySend, "vanish early", "", "connect")
	}()
	badErr := make(chan error, 1)
	go func() {
		defer wg.Done()
		badErr <- runClientOn(ctx, crowdNIC(), addr, steps.NotifySend, "bad key", "bad-rkey", "")
	}()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
	if err := <-badErr; err != nil {
		t.Errorf("the bad-rkey lesson's client: %v", err)
	}
	refused := 0
	waitEmpty(t, r)
	got := map[string]bool{}
	for _, row := range r.Roster() {
		if row.Landed {
			got[row.Message.String()] = true
		}
	}
	for i := 0; i < n; i++ {
		if msg := fmt.Sprintf("attendee %02d says hi", i); !got[msg] {
			t.Errorf("%q never reached the server; roster: %+v", msg, r.Roster())
		}
	}
	for _, row := range r.Roster() {
		if strings.Contains(row.Observed.EN, "answered their request with NAK remote access error") {
			refused++
			if row.Lesson != "bad-rkey" || row.Expected.EN == "" || row.PhaseCell(text.EN) != "expected ✓" {
				t.Errorf("the bad-rkey attendee's row is not its lesson's expected error: %+v", row)
			}
			// The Chinese roster says it in Chinese, the lesson's error included.
			if zh := row.What(text.ZH); !strings.Contains(zh, "预期错误 ✓（课程 bad-rkey）：本端用 NAK remote access error 回答了他们的请求；") ||
				strings.Contains(zh, "expected error") || row.Expected.ZH == "" || !strings.Contains(zh, row.Expected.ZH) {
				t.Errorf("the bad-rkey attendee's row in Chinese: %q", zh)
			}
		}
	}
	if refused != 1 {
		t.Errorf("%d attendees refused with a remote access error, want 1 (the bad-rkey lesson)", refused)
	}
	c := r.Counts()
	for _, row := range r.Roster() {
		if row.Phase != workshop.PhaseFinished || row.Message.String() == "bad key" {
			t.Logf("#%d %s %s: %s", row.N, row.Addr, row.Phase, row.Observed.EN)
		}
	}
	if c.Finished < n+1 || c.Failed < 1 { // the bad-rkey lesson finished (its error was the point); the one that vanished mid-tour failed
		t.Errorf("counts %+v: want %d finished and the vanished clients failed", c, n)
	}
	if live, base := r.Live(), r.Baseline(); live != base {
		t.Errorf("live objects %d after everyone left, want the baseline %d", live, base)
	}
	// Each attendee's wire view holds its own connection's packets only.
	for _, a := range r.Attendees() {
		row, s := a.Row(), a.Session()
		if s == nil {
			continue
		}
		pkts := s.Snapshot().Packets
		for _, p := range pkts {
			if !p.Outbound && p.DestQP != row.QPN {
				t.Errorf("attendee #%d (QPN 0x%x) shows a packet for QP 0x%x", row.N, row.QPN, p.DestQP)
				break
			}
		}
		if row.Phase == workshop.PhaseFinished && len(pkts) == 0 {
			t.Errorf("attendee #%d shows no packets", row.N)
		}
	}
}

// TestRoomFullTurnsAway: with --max-attendees 2 and two attendees who
// stay, the third is rejected with the reason the client prints. The two
// stay connected until the third has been turned away: if they hung up
// first, a loaded machine could free a seat before the third asks.
func TestRoomFullTurnsAway(t *testing.T) {
	r, addr := openTestRoom(t, 2, 5*time.Second)
	ctx := context.Background()
	for range 2 {
		s := connectedClient(t, addr)
		defer s.Close() // after the third's turn
	}
	if c := r.Counts(); c.Connected != 2 {
		t.Fatalf("counts %+v: want the two staying attendees connected", c)
	}
	err := runClient(ctx, addr, steps.NotifySend, "third", "", "")
	if err == nil || !strings.Contains(steps.ExplainIn(err, text.EN), "server full: 2 attendees") {
		t.Fatalf("the third client: %v, want the room's reason 'server full: 2 attendees'", err)
	}
	if c := r.Counts(); c.TurnedAway != 1 || c.Connected != 2 {
		t.Errorf("counts %+v: want 2 connected and 1 turned away", c)
	}
}

// connectedClient is a client that has connected to the room at addr and
// waits before its WRITE; the caller closes it.
func connectedClient(t testing.TB, addr netip.AddrPort) *steps.Session {
	t.Helper()
	return clientUntil(t, addr, "post-write")
}

// clientUntil is a client of the room at addr that has run every step
// before stop; the caller closes it.
func clientUntil(t testing.TB, addr netip.AddrPort, stop steps.StepID) *steps.Session {
	t.Helper()
	s, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}), Server: addr, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for s.Steps()[s.Next()].ID != stop {
		if _, err := s.RunNext(context.Background()); err != nil {
			s.Close()
			t.Fatal(err)
		}
	}
	return s
}

// TestRoomDropsIdleAttendee: an attendee that connects and never finishes
// is dropped after the idle limit and freed.
func TestRoomDropsIdleAttendee(t *testing.T) {
	r, addr := openTestRoom(t, 10, 300*time.Millisecond)
	s := connectedClient(t, addr)
	defer s.Close()
	waitEmpty(t, r) // stalls at post-write; the server drops it
	rows := r.Roster()
	if len(rows) != 1 || rows[0].Phase != workshop.PhaseDropped || !strings.Contains(rows[0].Observed.EN, "idle limit") {
		t.Fatalf("roster %+v: want one attendee dropped for the idle limit", rows)
	}
	if live, base := r.Live(), r.Baseline(); live != base {
		t.Errorf("live objects %d, want the baseline %d", live, base)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestRoomCloseWithAttendeesConnected: ending the workshop while
// attendees wait mid-tour frees everything, the room's own objects too,
// and marks them as ended by the workshop.
func TestRoomCloseWithAttendeesConnected(t *testing.T) {
	prov := sim.New(sim.Options{})
	r, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{prov},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), IdleLimit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	addr := r.ListenAddr(0)
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runClient(context.Background(), addr, steps.NotifySend, "wait", "", "post-write")
		}()
	}
	wg.Wait() // the clients stopped before their WRITE (and hung up)
	for range 3 {
		// These stay: paused mid-tour when the room closes.
		s := connectedClient(t, addr)
		defer s.Close()
	}
	deadline := time.Now().Add(20 * time.Second)
	for r.Counts().Connected != 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	began := time.Now()
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	t.Logf("Close took %v", time.Since(began))
	if live := prov.Live(); live.Total() != 0 {
		t.Errorf("live objects after Close: %+v", live)
	}
	ended := 0
	for _, row := range r.Roster() {
		if row.Phase == workshop.PhaseDropped && row.Observed.EN == "the workshop ended" {
			ended++
		}
	}
	if c := r.Counts(); ended != 3 || c.Connected != 0 {
		t.Errorf("%d attendees ended by the workshop, counts %+v; roster %+v", ended, c, r.Roster())
	}
}

// TestLeftAttendeesKeepTheirRow (hostile review W6): an attendee that
// has left keeps its row, with its message, and its Session only while
// it is among the last workshop.KeptSessions to leave.
func TestLeftAttendeesKeepTheirRow(t *testing.T) {
	r, addr := openTestRoom(t, 10, 5*time.Second)
	const n = workshop.KeptSessions + 4
	for i := range n {
		if err := runClient(context.Background(), addr, steps.NotifySend, fmt.Sprint("hello ", i), "", ""); err != nil {
			t.Fatal(err)
		}
		waitEmpty(t, r)
	}
	r.Close() // waits for every attendee's goroutine, retire included
	for i, a := range r.Attendees() {
		row := a.Row()
		if row.Phase != workshop.PhaseFinished || row.Message.String() != fmt.Sprint("hello ", i) {
			t.Errorf("#%d: %s %q, want finished with its message", row.N, row.Phase, row.Message)
		}
		if kept := a.Session() != nil; kept != (i >= n-workshop.KeptSessions) {
			t.Errorf("#%d keeps its Session: %v, want only the last %d to", row.N, kept, workshop.KeptSessions)
		}
	}
}
