package tui

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// Scenes: fixed screens a first-time learner meets, for the golden frames
// (TestGoldenScenes) and the checks that nothing is cut silently
// (TestNothingCutSilentlyChrome): a step of every tour and track, a
// lesson's expected error, the end of the tour. Like TestGoldenFrames'
// fixture, the state is made up (the simulated NIC draws keys and
// addresses at random); the steps, titles and calls are the real tours'.

// scene is one such screen.
type scene struct {
	name string
	demo bool
	cfg  func(*steps.Config)
	// at is the step (of the client) that just ran; "" with end: every
	// step ran.
	at  steps.StepID
	end bool
	// expected: the step at ended in its lesson's expected error.
	expected bool
	// err: the step at failed with it (the tour stopped there).
	err error
}

// serverWentAway is the error of a client whose server vanished during
// the handshake: its banner is long in every language.
var serverWentAway = &steps.Problem{Err: errors.New("RDMA_CM_EVENT_UNREACHABLE"),
	What: text.Text{EN: "the server at 10.0.2.15:7471 went away during the handshake (RDMA_CM_EVENT_UNREACHABLE, status -104: ECONNRESET)",
		ZH: "server（10.0.2.15:7471）在握手过程中消失了（RDMA_CM_EVENT_UNREACHABLE, status -104: ECONNRESET）"},
	Fix: text.Text{EN: "the server took the connect request, then stopped (Ctrl-C, kill, a crash) or lost the network. Start it again, then this client",
		ZH: "server 收到了连接请求，随后退出了（Ctrl-C、kill、崩溃）或断了网。重新启动它，再启动这个 client"}}

var scenes = []scene{
	{name: "write", demo: true, at: steps.IDPostWrite},
	{name: "read", demo: true, cfg: func(c *steps.Config) { c.Tour = steps.TourRead }, at: steps.IDPostRead},
	{name: "atomic", demo: true, cfg: func(c *steps.Config) { c.Tour = steps.TourAtomic }, at: steps.IDPostFetchAdd},
	{name: "ud", demo: true, cfg: func(c *steps.Config) { c.Tour = steps.TourUD }, at: steps.IDUDCreateAH},
	{name: "manual", demo: true, cfg: func(c *steps.Config) { c.Track = steps.TrackManual }, at: steps.IDModifyRTR},
	{name: "lesson-error", cfg: func(c *steps.Config) { c.Lesson = lessonNamed("bad-rkey") }, at: steps.IDPollWrite, expected: true},
	{name: "error", at: steps.IDGetEstablished, err: serverWentAway},
	{name: "end", demo: true, end: true},
}

// fixtureRunner is a session whose snapshot is a fixture: refresh keeps
// it, and Done says what the fixture says.
type fixtureRunner struct {
	*steps.Session
	snap steps.Snapshot
}

func (f *fixtureRunner) Snapshot() steps.Snapshot  { return f.snap }
func (f *fixtureRunner) Sample(time.Time)          {}
func (f *fixtureRunner) Next() int                 { return f.snap.Next }
func (f *fixtureRunner) Done() (done, failed bool) { return f.snap.Done, f.snap.Failed }

// sceneModel is the model showing sc.
func sceneModel(t testing.TB, sc scene, lang text.Lang, w, h int) *model {
	t.Helper()
	roles := []steps.Role{steps.Client}
	if sc.demo {
		roles = []steps.Role{steps.Server, steps.Client}
	}
	var sess []*steps.Session
	for _, role := range roles {
		cfg := steps.Config{Role: role, Notify: steps.NotifySend, Provider: sim.New(sim.Options{}),
			Bind: netip.MustParseAddrPort("10.0.2.15:7471"), Server: netip.MustParseAddrPort("10.0.2.15:7471"),
			BackendWhy: text.Same("no RDMA device found: using the simulated NIC")}
		if sc.cfg != nil {
			sc.cfg(&cfg)
		}
		s, err := steps.NewSession(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if s.Prediction() != nil {
			if err := s.Predict(2); err != nil {
				t.Fatal(err)
			}
		}
		sess = append(sess, s)
	}
	done := sceneDone(t, sc, sess)
	var runners []steps.Runner
	for i, s := range sess {
		runners = append(runners, &fixtureRunner{Session: s, snap: sceneSnap(s, done[i], sc)})
	}
	m := newTestModel(t, runners, lang, w, h, "NO_COLOR=1")
	m.now = func() time.Time { return goldenClock }
	last := len(runners) - 1
	m.run.lastSide, m.run.lastIdx = last, done[last]-1
	if m.demo {
		m.planPos = 0
		for _, c := range done {
			m.planPos += c
		}
	}
	m.end.errs[last] = sc.err
	m.Update(tickMsg{}) // settle, as after the step's end
	return m
}

// sceneDone is how many steps each session has run: the client up to and
// including sc.at, the server every step the demo's plan puts before it.
func sceneDone(t testing.TB, sc scene, sess []*steps.Session) []int {
	t.Helper()
	if sc.end {
		out := make([]int, len(sess))
		for i, s := range sess {
			out[i] = len(s.Steps())
		}
		return out
	}
	cli := sess[len(sess)-1].Steps()
	at := -1
	for i, st := range cli {
		if st.ID == sc.at {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("%s: the client's tour has no step %s", sc.name, sc.at)
	}
	if len(sess) == 1 {
		return []int{at + 1}
	}
	plan := steps.DemoPlan(sess[0].Steps(), cli)
	srv := 0
	for _, turn := range plan {
		if turn.Side == steps.Client && turn.Index == at {
			break
		}
		if turn.Side == steps.Server {
			srv++
		}
	}
	return []int{srv, at + 1}
}

// sceneSnap is s's snapshot with its first done steps run.
func sceneSnap(s *steps.Session, done int, sc scene) steps.Snapshot {
	snap := s.Snapshot()
	for i := range snap.Steps[:done] {
		ss := &snap.Steps[i]
		ss.State = steps.Succeeded
		ss.Outcome = &steps.Outcome{Call: ss.Call + "  /* = 0 */",
			Note: text.Text{EN: "What the call did, in words.", ZH: "这个调用做了什么。"}}
		if sc.expected && i == done-1 {
			ss.Outcome.Expected = true
			ss.Outcome.Failure = text.Text{EN: `RDMA_WRITE completion: status "remote access error" (wr_id 300)`,
				ZH: `RDMA_WRITE completion：状态 "remote access error"（wr_id 300）`}
		}
	}
	snap.Next = done
	fillState(&snap, snap.Role)
	if snap.Tour == steps.TourUD {
		fillUDState(&snap) // a UD QP, its AH and the SIDR exchange (both sides alike)
		snap.Packets = nil
	}
	if sc.end {
		snap.Done = true
		if snap.Role == steps.Server {
			snap.Result = &steps.Result{Tour: snap.Tour, Via: steps.NotifySend,
				Message: privdata.PeerBytes(steps.DefaultMessage), Notice: privdata.PeerBytes("RDMA_WRITE_DONE")}
		}
	}
	if sc.err != nil {
		failed := &snap.Steps[done-1]
		failed.State, failed.Outcome = steps.FailedState, &steps.Outcome{Call: failed.Call + "  /* = 0: RDMA_CM_EVENT_UNREACHABLE */"}
		snap.Next, snap.Done, snap.Failed = done-1, true, true
	}
	if sc.expected {
		snap.CQ.Completions = []verbs.WC{{WRID: 300, Status: verbs.WCRemAccessErr, Opcode: verbs.WCRDMAWrite}}
	}
	return snap
}
