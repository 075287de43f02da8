package steps_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// The waiting hint names the peer's step from the tour plan.
func TestWaitForNamesThePeersStep(t *testing.T) {
	tests := []struct {
		name   string
		cfg    steps.Config
		stepID steps.StepID
		want   string // PeerWait.Text().EN; "" = the step does not wait on the peer
		wantZH string
	}{
		{"client waits for accept", steps.Config{Role: steps.Client}, "get-established",
			"on the server: press Enter until step 13, Accept, handing out addr and rkey", "在 server 端：一直按回车，直到第 13 步「accept，并交出 addr 和 rkey」"},
		{"server waits for connect", steps.Config{Role: steps.Server}, "get-connect-request",
			"on the client: press Enter until step 11, Send the connect request", ""},
		{"server waits for the RTU", steps.Config{Role: steps.Server}, "get-established",
			"on the client: press Enter until step 12, Wait for ESTABLISHED and read remote_info", ""},
		{"server waits for the notification (send)", steps.Config{Role: steps.Server}, "wait-notify",
			"on the client: press Enter until step 15, SEND \"RDMA_WRITE_DONE\"", ""},
		{"server waits for the notification (doorbell)", steps.Config{Role: steps.Server, Notify: steps.NotifyDoorbell}, "wait-notify",
			"on the client: press Enter until step 15, Ring the doorbell with a second WRITE", ""},
		{"server waits for the notification (imm)", steps.Config{Role: steps.Server, Notify: steps.NotifyImm}, "wait-notify",
			"on the client: press Enter until step 13, RDMA WRITE with immediate", ""},
		{"resolve waits on the network only", steps.Config{Role: steps.Client}, "resolve-addr", "", ""},
		{"poll-write waits on the NIC only", steps.Config{Role: steps.Client}, "poll-write", "", ""},
		{"manual track: client waits for accept", steps.Config{Role: steps.Client, Track: steps.TrackManual}, "get-connect-response",
			"on the server: press Enter until step", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Provider = sim.New(sim.Options{})
			cfg.Bind = netip.AddrPortFrom(loopback, 0)
			cfg.Server = netip.AddrPortFrom(loopback, 7471)
			s, err := steps.NewSession(cfg)
			if err != nil {
				t.Fatal(err)
			}
			idx := -1
			for i, st := range s.Steps() {
				if st.ID == tt.stepID {
					idx = i
				}
			}
			if idx < 0 {
				t.Fatalf("no step %s in %v", tt.stepID, s.Steps())
			}
			w, ok := s.WaitFor(idx)
			if tt.want == "" {
				if ok {
					t.Fatalf("WaitFor(%s) = %q, want none", tt.stepID, w.Text().EN)
				}
				return
			}
			if !ok || !strings.HasPrefix(w.Text().EN, tt.want) {
				t.Fatalf("WaitFor(%s) = %q (%v), want %q", tt.stepID, w.Text().EN, ok, tt.want)
			}
			handshake := tt.stepID == "get-established" || tt.stepID == "get-connect-response"
			if got := strings.Contains(w.Timer.EN, "MRA") && strings.Contains(w.Timer.ZH, "MRA"); got != handshake {
				t.Errorf("timer note %q: mentions the MRA = %v, want %v", w.Timer.EN, got, handshake)
			}
			if tt.wantZH != "" && w.Text().ZH != tt.wantZH {
				t.Errorf("zh = %q, want %q", w.Text().ZH, tt.wantZH)
			}
		})
	}
}

// Two sides driven independently, as two processes would be: the server's
// user reads for longer than --timeout before accepting, and the client's
// user before the notification. An interactive tour waits; an --auto
// one gives up with the timeout.
func TestInteractiveWaitOutlastsTimeout(t *testing.T) {
	const timeout, reading = 100 * time.Millisecond, 600 * time.Millisecond
	for _, interactive := range []bool{true, false} {
		t.Run(map[bool]string{true: "interactive", false: "auto"}[interactive], func(t *testing.T) {
			srv, err := steps.NewSession(steps.Config{Role: steps.Server, Provider: sim.New(sim.Options{}),
				Bind: netip.AddrPortFrom(loopback, 0), Timeout: timeout, Interactive: interactive})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			runUntil(t, srv, "get-connect-request")
			server, _ := netip.ParseAddrPort(srv.Snapshot().CMID.Local)
			cli, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}),
				Server: server, Timeout: timeout, Interactive: interactive})
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			errs := make(map[steps.Role]error)
			var mu sync.Mutex
			var wg sync.WaitGroup
			for _, s := range []*steps.Session{srv, cli} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := runAll(s, map[steps.StepID]bool{"accept": true, "post-send": true}, reading)
					mu.Lock()
					errs[s.Config().Role] = err
					mu.Unlock()
					if err != nil { // as a process would: leave, so the peer's wait ends
						s.Close()
					}
				}()
			}
			wg.Wait()
			if interactive {
				if errs[steps.Server] != nil || errs[steps.Client] != nil {
					t.Fatalf("interactive tour failed: server %v; client %v", errs[steps.Server], errs[steps.Client])
				}
				return
			}
			if !errors.Is(errs[steps.Client], context.DeadlineExceeded) {
				t.Fatalf("auto client: %v, want a timeout", errs[steps.Client])
			}
			if msg := steps.Explain(errs[steps.Client]); !strings.Contains(msg, "--timeout") {
				t.Errorf("the timeout is not explained: %s", msg)
			}
		})
	}
}

// runUntil runs s up to (not including) the step with id.
func runUntil(t *testing.T, s *steps.Session, id steps.StepID) {
	t.Helper()
	for s.Steps()[s.Next()].ID != id {
		if _, err := s.RunNext(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// runAll runs the rest of s, reading for d before each step in slow.
func runAll(s *steps.Session, slow map[steps.StepID]bool, d time.Duration) error {
	for s.Next() < len(s.Steps()) {
		if slow[s.Steps()[s.Next()].ID] {
			time.Sleep(d)
		}
		if out, err := s.RunNext(context.Background()); err != nil {
			// The failed wait shows no result it did not get.
			if strings.Contains(out.Call, "= 0") || !strings.Contains(out.Call, "blocked") {
				return fmt.Errorf("%w; the failed call shows a stale result: %s", err, out.Call)
			}
			return err
		}
	}
	return nil
}
