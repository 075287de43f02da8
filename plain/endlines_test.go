package plain

import (
	"bytes"
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// endCase is one tour or lesson, run by two plain runners (a server
// and a client, as two terminals would).
type endCase struct {
	name string
	cfg  steps.Config
}

func endCases() []endCase {
	var cases []endCase
	for _, d := range steps.Tours() {
		cases = append(cases, endCase{"tour/" + d.Name, steps.Config{Tour: d.Kind}})
	}
	for _, l := range steps.Lessons() {
		cases = append(cases, endCase{"lesson/" + l.Name, steps.Config{Notify: l.Notify, Lesson: lessonNamed(l.Name)}})
	}
	return cases
}

// runSides runs cfg's server and client each under its own plain
// runner on its own simulated NIC, the client once the server listens,
// and returns what each printed.
func runSides(t *testing.T, cfg steps.Config) (srvOut, cliOut string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := netip.MustParseAddrPort(l.Addr().String())
	l.Close()
	cfg.Timeout, cfg.BackendWhy = 10*time.Second, text.Same("test")
	scfg, ccfg := cfg, cfg
	scfg.Role, scfg.Provider, scfg.Bind = steps.Server, sim.New(sim.Options{}), addr
	ccfg.Role, ccfg.Provider, ccfg.Server = steps.Client, sim.New(sim.Options{}), addr
	srv, err := steps.NewSession(scfg)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := steps.NewSession(ccfg)
	if err != nil {
		t.Fatal(err)
	}
	var sbuf, cbuf bytes.Buffer
	srvDone := make(chan error, 1)
	go func() { srvDone <- New(Options{Out: &sbuf, Lang: text.EN}).Run(ctx, srv) }()
	for !listening(srv) && !finished(srv) { // a setup-failure lesson's server listens, then lets go at once
		if ctx.Err() != nil {
			t.Fatal("the server never listened")
		}
		time.Sleep(time.Millisecond)
	}
	if err := New(Options{Out: &cbuf, Lang: text.EN}).Run(ctx, cli); err != nil {
		t.Errorf("client: %v\n%s", err, cbuf.String())
	}
	if err := <-srvDone; err != nil {
		t.Errorf("server: %v\n%s", err, sbuf.String())
	}
	return sbuf.String(), cbuf.String()
}

// finished: the session ran to its end.
func finished(s *steps.Session) bool { done, _ := s.Done(); return done }

// listening: the server's CM id listens (or, on the ud tour, is bound).
func listening(s *steps.Session) bool {
	snap := s.Snapshot()
	return snap.CMID != nil && (snap.CMID.Listening || snap.Tour == steps.TourUD && snap.Next > 3)
}

// TestEndLinesOnBothSides: every tour and lesson, each side in its own
// plain runner, ends with "tour complete"; each result line carries its
// own side's label and its tour's sentence ("via" only where a tour
// notifies); no expected error is followed by advice to start again.
func TestEndLinesOnBothSides(t *testing.T) {
	for _, tc := range endCases() {
		t.Run(tc.name, func(t *testing.T) {
			srvOut, cliOut := runSides(t, tc.cfg)
			// The server says how to start the client, just before it
			// waits for it (plain text reads on from the note to the
			// wait; a replay prints the same, the note being recorded).
			want := "Now start the client, in another terminal or on another host: rdmatour client 127.0.0.1 --port "
			if !strings.Contains(srvOut, want) {
				t.Errorf("the server never says %q:\n%s", want, srvOut)
			}
			for side, out := range map[steps.Role]string{steps.Server: srvOut, steps.Client: cliOut} {
				checkEnd(t, side, out, tc.cfg.Tour)
			}
		})
	}
}

func checkEnd(t *testing.T, side steps.Role, out string, tour steps.TourKind) {
	t.Helper()
	if !strings.Contains(out, "\ntour complete\n") {
		t.Errorf("%s: no end line:\n%s", side, out)
	}
	other := steps.Client
	if side == steps.Client {
		other = steps.Server
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "["+other.String()+"]") {
			t.Errorf("%s prints a line labelled as the %s: %q", side, other, line)
		}
		if strings.HasPrefix(line, "  EXPECTED ERROR") && (strings.Contains(line, "again") || strings.Contains(line, "Start")) {
			t.Errorf("%s: an expected error with advice to start again: %q", side, line)
		}
		if d, _ := steps.TourOf(tour); !d.Notifies && strings.HasPrefix(line, "["+side.String()+"]") &&
			(strings.Contains(line, "via send") || strings.Contains(line, "(via ")) {
			t.Errorf("%s: the %s tour sends no notification: %q", side, d.Name, line)
		}
	}
}

// A lesson's preset is marked with the lesson's name in plain output,
// as on the screen and in export-c (item 6 of issue 21).
func TestPlainMarksTheLessonsEdit(t *testing.T) {
	l := lessonNamed("bad-rkey")
	_, cliOut := runSides(t, steps.Config{Notify: l.Notify, Lesson: l})
	if !strings.Contains(cliOut, "/* lesson bad-rkey: was 0x") || strings.Contains(cliOut, "/* you: was") {
		t.Errorf("the client's plain output does not mark the lesson's edit as the lesson's:\n%s", cliOut)
	}
}
