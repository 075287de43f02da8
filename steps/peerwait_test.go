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
