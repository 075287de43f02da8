package record

import (
	"bytes"
	"context"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// liveTour runs a whole tour as two processes would (server and client
// each on its own simulated NIC, each recording to its own file), driven
// in the demo's order, and returns the two files and the live sessions
// (closed).
func liveTour(t testing.TB, cfg steps.Config) (files [2][]byte, sessions [2]*steps.Session) {
	t.Helper()
	var bufs [2]bytes.Buffer
	ctx := context.Background()
	srvCfg := cfg
	srvCfg.Role, srvCfg.Provider = steps.Server, sim.New(sim.Options{})
	srvCfg.Bind = netip.MustParseAddrPort("127.0.0.1:0")
	srv := recorded(t, srvCfg, &bufs[0])
	// The client needs the server's port: run the server to its listen.
	for srv.Steps()[srv.Next()].ID != "listen" {
		mustRun(t, srv, ctx)
	}
	mustRun(t, srv, ctx)
	cliCfg := cfg
	cliCfg.Role, cliCfg.Provider = steps.Client, sim.New(sim.Options{})
	cliCfg.Server = netip.MustParseAddrPort(srv.Snapshot().CMID.Local)
	cli := recorded(t, cliCfg, &bufs[1])
	bySide := map[steps.Role]*steps.Session{steps.Server: srv, steps.Client: cli}
	for _, turn := range steps.DemoPlan(srv.Steps(), cli.Steps()) {
		s := bySide[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		if _, err := s.RunNext(ctx); err != nil {
			break // a failure ends the tour, as live
		}
	}
	cli.Close()
	srv.Close()
	return [2][]byte{bufs[0].Bytes(), bufs[1].Bytes()}, [2]*steps.Session{srv, cli}
}

// recorded is a session whose steps go to out, header first.
func recorded(t testing.TB, cfg steps.Config, out *bytes.Buffer) *steps.Session {
	t.Helper()
	w := NewWriter(out, "test", cfg.Role.String())
	cfg.Recorder = w.Side(cfg.Role)
	s, err := steps.NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Begin([]string{"sim0"}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustRun(t testing.TB, s *steps.Session, ctx context.Context) {
	t.Helper()
	if _, err := s.RunNext(ctx); err != nil {
		t.Fatal(err)
	}
}

func demoConfig() steps.Config {
	return steps.Config{Notify: steps.NotifySend, Timeout: 10 * time.Second}
}

func tourConfigs() map[string]steps.Config {
	base := demoConfig()
	imm, lesson, manual := base, base, base
	imm.Notify = steps.NotifyImm
	lesson.Lesson = lessonNamed("bad-rkey")
	manual.Track, manual.Notify = steps.TrackManual, steps.NotifyDoorbell
	return map[string]steps.Config{"send": base, "imm": imm, "lesson-bad-rkey": lesson, "manual-doorbell": manual}
}

// TestReplayShowsWhatTheLiveSessionKept: every step's outcome and the
// snapshot after it come back from the file as the live session kept them
// (compared in their JSON form: times lose only their monotonic reading),
// and so do the timeline, the packets and the teardown.
func TestReplayShowsWhatTheLiveSessionKept(t *testing.T) {
	for name, cfg := range tourConfigs() {
		t.Run(name, func(t *testing.T) {
			files, live := liveTour(t, cfg)
			for side, file := range files {
				rec, err := Decode(bytes.NewReader(file), name)
				if err != nil {
					t.Fatal(err)
				}
				sessions, err := rec.Runners()
				if err != nil {
					t.Fatal(err)
				}
				compareReplay(t, live[side], sessions[0])
			}
		})
	}
}

func compareReplay(t *testing.T, live, replay steps.Runner) {
	t.Helper()
	ctx := context.Background()
	for i := range live.Steps() {
		want, ok := live.StepSnapshot(i)
		if !ok {
			break
		}
		out, _ := replay.RunNext(ctx)
		got, ok := replay.StepSnapshot(i)
		if !ok {
			t.Fatalf("step %d: replay has no snapshot", i)
		}
		if out.Call != want.Steps[i].Outcome.Call {
			t.Errorf("step %d: replay C %q, live %q", i, out.Call, want.Steps[i].Outcome.Call)
		}
		for what, pair := range map[string][2]any{
			"snapshot": {encodeSnapshot(want), encodeSnapshot(got)},
			"timeline": {want.Timeline, got.Timeline},
			"packets":  {want.Packets, got.Packets},
			"steps":    {stepsJSON(want.Steps), stepsJSON(got.Steps)},
			"data":     {want.Data, got.Data},
		} {
			if w, g := mustJSON(t, pair[0]), mustJSON(t, pair[1]); w != g {
				t.Errorf("step %d (%s): the replay's %s differs:\nlive   %.300s\nreplay %.300s", i, want.Steps[i].ID, what, w, g)
			}
		}
	}
	liveTeardown := mustJSON(t, encodeSnapshot(live.Snapshot()))
	replay.Close()
	if got := mustJSON(t, encodeSnapshot(replay.Snapshot())); got != liveTeardown {
		t.Errorf("after teardown the replay shows\n%.300s\nlive\n%.300s", got, liveTeardown)
	}
}

// stepsJSON is the steps pane's content without the C statements (which
// a recording leaves out).
func stepsJSON(ss []steps.StepStatus) []steps.StepStatus {
	out := append([]steps.StepStatus(nil), ss...)
	for i := range out {
		if o := out[i].Outcome; o != nil {
			c := *o
			c.C = nil
			out[i].Outcome = &c
		}
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEncodeDecodeRoundTrip: decoding a file and encoding it again gives a
// file that decodes to the same thing; the second encoding is
// byte-identical to the first (the codec loses nothing it keeps).
func TestEncodeDecodeRoundTrip(t *testing.T) {
	for name, cfg := range tourConfigs() {
		t.Run(name, func(t *testing.T) {
			files, _ := liveTour(t, cfg)
			for _, file := range files {
				first := reencode(t, file)
				if second := reencode(t, first); !bytes.Equal(first, second) {
					t.Fatalf("encode(decode(x)) is not stable:\n%s", firstLineDiff(first, second))
				}
			}
			// Both sides as one demo file.
			a, _ := Decode(bytes.NewReader(files[0]), "server")
			b, _ := Decode(bytes.NewReader(files[1]), "client")
			demo, err := Merge(b, a)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Encode(&buf, demo); err != nil {
				t.Fatal(err)
			}
			if back, err := Decode(&buf, "demo"); err != nil || len(back.Sides) != 2 {
				t.Fatalf("the merged demo does not decode: %v", err)
			}
		})
	}
}

func reencode(t *testing.T, file []byte) []byte {
	t.Helper()
	rec, err := Decode(bytes.NewReader(file), "in")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Encode(&out, rec); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func firstLineDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "line " + la[i][:min(len(la[i]), 200)] + "\nvs   " + lb[i][:min(len(lb[i]), 200)]
		}
	}
	return "lengths differ"
}

// TestHeaderNamesTheSession: the first line says what was recorded and
// with what: format and versions, role, tour options, backend, devices.
func TestHeaderNamesTheSession(t *testing.T) {
	cfg := demoConfig()
	cfg.Lesson = lessonNamed("no-remote-write")
	files, _ := liveTour(t, cfg)
	first, _, _ := strings.Cut(string(files[1]), "\n")
	var h Header
	if err := json.Unmarshal([]byte(first), &h); err != nil {
		t.Fatal(err)
	}
	if h.Format != Format || h.Version != Version || h.Rdmatour != "test" || h.Command != "client" || len(h.Sides) != 1 {
		t.Fatalf("header %+v", h)
	}
	sh := h.Sides[0]
	if sh.Role != "client" || sh.Notify != "send" || sh.Track != "cm" || sh.Lesson != "no-remote-write" ||
		sh.Backend != "sim" || len(sh.Devices) != 1 || sh.Devices[0] != "sim0" || sh.Server == "" || len(sh.Tour) < 10 {
		t.Errorf("side header %+v", sh)
	}
	if !sh.Initial.Simulated {
		t.Error("the header's initial state does not say the NIC was simulated")
	}
}

// A step line keeps the C its step showed before it ran only when that
// was edited: the lesson's post-write, not the plain tour's steps.
func TestRecordKeepsOnlyEditedPreRunCalls(t *testing.T) {
	for name, want := range map[string]int{"send": 0, "lesson-bad-rkey": 1} {
		files, _ := liveTour(t, tourConfigs()[name])
		n := 0
		for _, file := range files {
			n += bytes.Count(file, []byte(`"shown":`))
		}
		if n != want {
			t.Errorf("%s: %d step lines keep a pre-run call, want %d", name, n, want)
		}
	}
}
