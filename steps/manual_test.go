package steps

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// newManualSession is NewSession on the manual track.
func newManualSession(t *testing.T, cfg Config) *Session {
	t.Helper()
	cfg.Track = TrackManual
	s, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// manualTour is the write tour of role on the manual track.
func manualTour(role Role, n Notify) []Step { return writeTour(n).steps(role, manualTrack()) }

// manualTours are the server's manual tour and the client's for every
// notify mode.
func manualTours() [][]Step {
	tours := [][]Step{manualTour(Server, NotifySend)}
	for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
		tours = append(tours, manualTour(Client, n))
	}
	return tours
}

// Each track names the steps that send its CM messages, and the side that
// sends each one has that step: otherwise the other side's wait would
// name a step that never runs and DemoPlan would ignore it.
func TestTracksNameStepsTheyHave(t *testing.T) {
	for _, tr := range rcTracks() {
		has := func(role Role, id StepID) bool {
			for _, st := range writeTour(NotifySend).steps(role, tr) {
				if st.ID == id {
					return true
				}
			}
			return false
		}
		for role, ids := range map[Role][]StepID{Client: {tr.peer.req, tr.peer.rtu, tr.peer.hangUp}, Server: {tr.peer.rep, tr.peer.hangUp}} {
			for _, id := range ids {
				if !has(role, id) {
					t.Errorf("track %s: the %s has no step %s", tr.track, role, id)
				}
			}
		}
		if rcTrackOf(tr.track).track != tr.track {
			t.Errorf("track %s is not at its index in rcTracks", tr.track)
		}
	}
}

func TestManualToursOnSimulatedNIC(t *testing.T) {
	for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
		t.Run(n.String(), func(t *testing.T) {
			srvNIC, cliNIC := sim.New(sim.Options{}), sim.New(sim.Options{})
			srv := newManualSession(t, Config{Role: Server, Notify: n, Provider: srvNIC,
				Bind: netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0), Timeout: 10 * time.Second})
			defer srv.Close()
			// Server to listen, then the client can be told the port.
			for srv.Steps()[srv.Next()].ID != "get-connect-request" {
				if _, err := srv.RunNext(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			server, err := netip.ParseAddrPort(srv.Snapshot().CMID.Local)
			if err != nil {
				t.Fatal(err)
			}
			msg := "hello from a QP brought up by hand (" + n.String() + ")"
			cli := newManualSession(t, Config{Role: Client, Notify: n, Provider: cliNIC, Server: server, Message: msg, Timeout: 10 * time.Second})
			defer cli.Close()
			sessions := map[Role]*Session{Server: srv, Client: cli}
			outs := map[string]Outcome{}
			for _, turn := range DemoPlan(srv.Steps(), cli.Steps()) {
				s := sessions[turn.Side]
				if s.Next() > turn.Index {
					continue
				}
				id := s.Steps()[turn.Index].ID
				out, err := s.RunNext(context.Background())
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", turn.Side, id, err, out.Call)
				}
				outs[turn.Side.String()+"/"+string(id)] = out
			}
			for _, s := range []*Session{srv, cli} {
				if done, failed := s.Done(); !done || failed {
					t.Fatalf("%s: done=%v failed=%v", s.Config().Role, done, failed)
				}
			}
			if r := srv.Snapshot().Result; r == nil || string(r.Message) != msg || r.Via != n {
				t.Fatalf("server result %+v, want %q via %s", r, msg, n)
			}
			// The screen shows the mask and the attribute values.
			for key, want := range map[string][]string{
				"server/modify-init":   {"IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT", ".qp_access_flags = IBV_ACCESS_REMOTE_WRITE"},
				"client/modify-init":   {".qp_access_flags = 0", ".port_num = 1"},
				"client/modify-rtr":    {"IBV_QP_AV", ".dest_qp_num = 0x", ".rq_psn = 0x", ".path_mtu = IBV_MTU_1024", ".is_global = 1"},
				"server/modify-rts":    {"IBV_QP_SQ_PSN", ".sq_psn = 0x", ".retry_cnt = ", ".max_rd_atomic = 1"},
				"client/establish":     {"rdma_establish(id); /* = 0 */"},
				"server/accept-manual": {".qp_num = 0x"},
				"client/teardown":      {"ibv_destroy_qp(qp); /* = 0 */"},
			} {
				for _, w := range want {
					if !strings.Contains(outs[key].Call, w) {
						t.Errorf("%s call lacks %q:\n%s", key, w, outs[key].Call)
					}
				}
			}
			hist := cli.Snapshot().QP.History
			wantHist := []verbs.QPState{verbs.QPSReset, verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS, verbs.QPSErr}
			if len(hist) != len(wantHist) {
				t.Errorf("client QP history %v, want %v", hist, wantHist)
			} else {
				for i := range hist {
					if hist[i] != wantHist[i] {
						t.Errorf("client QP history %v, want %v", hist, wantHist)
						break
					}
				}
			}
			for name, nic := range map[string]verbs.Provider{"server": srvNIC, "client": cliNIC} {
				if live := nic.Live(); live.Total() != 0 {
					t.Errorf("%s leaked %+v", name, live)
				}
			}
		})
	}
}

// Quitting after any turn releases everything, the manual QP included.
func TestManualQuitAnywhere(t *testing.T) {
	srvT, cliT := manualTour(Server, NotifySend), manualTour(Client, NotifySend)
	plan := DemoPlan(srvT, cliT)
	for k := 0; k <= len(plan); k++ {
		srvNIC, cliNIC := sim.New(sim.Options{}), sim.New(sim.Options{})
		srv := newManualSession(t, Config{Role: Server, Provider: srvNIC, Bind: netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0), Timeout: 5 * time.Second})
		var cli *Session
		for i, turn := range plan {
			if i >= k {
				break
			}
			if turn.Side == Client && cli == nil {
				server, _ := netip.ParseAddrPort(srv.Snapshot().CMID.Local)
				cli = newManualSession(t, Config{Role: Client, Provider: cliNIC, Server: server, Timeout: 5 * time.Second})
			}
			s := map[Role]*Session{Server: srv, Client: cli}[turn.Side]
			if _, err := s.RunNext(context.Background()); err != nil {
				t.Fatalf("k=%d turn %d: %v", k, i, err)
			}
		}
		if cli != nil {
			if _, err := cli.Close(); err != nil {
				t.Errorf("k=%d client close: %v", k, err)
			}
		}
		if _, err := srv.Close(); err != nil {
			t.Errorf("k=%d server close: %v", k, err)
		}
		for name, nic := range map[string]verbs.Provider{"server": srvNIC, "client": cliNIC} {
			if live := nic.Live(); live.Total() != 0 {
				t.Errorf("k=%d: %s leaked %+v", k, name, live)
			}
		}
	}
}

func TestManualTourShape(t *testing.T) {
	for _, tour := range manualTours() {
		seen := map[StepID]bool{}
		for _, st := range tour {
			if st.ID == "create-qp" || st.ID == "accept" || st.ID == "connect" {
				t.Errorf("manual tour still has %s", st.ID)
			}
			seen[st.ID] = true
		}
		for _, id := range []StepID{"create-qp-manual", "modify-init", "modify-rtr", "modify-rts", "disconnect-manual"} {
			if !seen[id] {
				t.Errorf("manual tour lacks %s", id)
			}
		}
	}
}

func TestManualStepsHavePages(t *testing.T) {
	for _, tour := range manualTours() {
		for _, st := range tour {
			for _, lang := range []string{"en", "zh"} {
				if _, err := os.Stat(filepath.Join("..", "docs", lang, string(st.ID)+".md")); err != nil {
					t.Errorf("step %s: no docs/%s/%s.md", st.ID, lang, st.ID)
				}
			}
		}
	}
}
