package plain

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// A person at the client's plain prompt: while get-established waits for
// the server's user, the client says what that user must do, and Enter
// pressed meanwhile gets a note instead of running the next step unseen.
// The server's user then catches up and both tours complete.
func TestPlainWaitHintAndEnterWhileWaiting(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := steps.NewSession(steps.Config{Role: steps.Server, Provider: sim.New(sim.Options{}),
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), Timeout: 100 * time.Millisecond, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for srv.Steps()[srv.Next()].ID != "get-connect-request" {
		if _, err := srv.RunNext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	server := netip.MustParseAddrPort(srv.Snapshot().CMID.Local)
	cli, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}),
		Server: server, Timeout: 100 * time.Millisecond, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	keys, typing := io.Pipe()
	out := &syncBuffer{}
	p := &Runner{out: out, lang: text.EN, in: newLineFeed(keys)}
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, cli) }()

	enter := func() { typing.Write([]byte("\n")) }
	waitOut := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(out.String(), s); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q in the client's output:\n%s", s, out.String())
			}
		}
	}
	// The server's user reads on; the client's presses Enter up to
	// get-established (step 12), which waits for the accept.
	go srv.RunNext(ctx) // get-connect-request: answers the client's REQ
	for i := 1; i <= 12; i++ {
		waitOut(fmt.Sprintf("[%d/18]", i))
		enter()
	}
	waitOut("… waiting for the peer: on the server: press Enter until step 13, Accept, handing out addr and rkey")
	waitOut("No rush: the server's CM answers each repeated REQ with an MRA")
	time.Sleep(300 * time.Millisecond) // longer than --timeout: an interactive wait does not end
	enter()
	waitOut("(still waiting for the server (step 13 there): Enter does nothing until then; q quits)")
	if strings.Contains(out.String(), "[13/") {
		t.Fatalf("Enter pressed while waiting ran the next step:\n%s", out.String())
	}
	go func() { // the server's user catches up
		for srv.Next() < len(srv.Steps()) {
			if _, err := srv.RunNext(ctx); err != nil {
				return
			}
		}
	}()
	go func() {
		for ctx.Err() == nil {
			enter()
			time.Sleep(20 * time.Millisecond)
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("client: %v\n%s", err, out.String())
		}
	case <-ctx.Done():
		t.Fatalf("the client did not finish:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "tour complete") {
		t.Errorf("no tour complete:\n%s", out.String())
	}
}

// syncBuffer is a bytes.Buffer the runner's goroutine and the test may
// use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
