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

// TestPlainZHShowsNoEnglishResultName runs every tour as a plain demo in
// --lang zh and checks every result line against the names the steps
// declared: each has both languages, and the line shows the Chinese, as
// the TUI's call pane does, never the English.
func TestPlainZHShowsNoEnglishResultName(t *testing.T) {
	for _, tour := range []steps.TourKind{steps.TourWrite, steps.TourRead, steps.TourAtomic, steps.TourUD} {
		t.Run(tour.String(), func(t *testing.T) {
			out, results := plainDemo(t, tour, text.ZH)
			if len(results) < 5 {
				t.Fatalf("only %d results: the tour did not run\n%s", len(results), out)
			}
			for _, kv := range results {
				if !kv.Name.Bilingual() {
					t.Errorf("result name %q has no Chinese", kv.Name.EN)
				}
				if kv.Name.ZH != kv.Name.EN && strings.Contains(out, "     "+kv.Name.EN+" = ") {
					t.Errorf("zh: the English result name %q is printed", kv.Name.EN)
				}
				if !strings.Contains(out, "     "+kv.Name.ZH+" = "+kv.Value.In(text.ZH)) {
					t.Errorf("zh: no line %q", kv.Name.ZH+" = "+kv.Value.In(text.ZH))
				}
			}
			for _, en := range []string{"backend: ", "tour complete", "state: "} {
				if strings.Contains(out, en) {
					t.Errorf("zh: %q is printed:\n%s", en, out)
				}
			}
		})
	}
}

// plainDemo runs tour as a plain demo on one simulated NIC in lang and
// returns what it printed and every result its steps produced.
func plainDemo(t *testing.T, tour steps.TourKind, lang text.Lang) (string, []steps.KV) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := netip.MustParseAddrPort(l.Addr().String())
	l.Close()
	nic := sim.New(sim.Options{})
	var sessions []*steps.Session
	for _, cfg := range []steps.Config{{Role: steps.Server, Bind: addr}, {Role: steps.Client, Server: addr}} {
		cfg.Tour, cfg.Provider, cfg.Timeout, cfg.BackendWhy = tour, nic, 10*time.Second, text.Text{EN: "test", ZH: "测试"}
		s, err := steps.NewSession(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	steps.LinkDemo(sessions[0], sessions[1])
	var buf bytes.Buffer
	if err := New(Options{Out: &buf, Lang: lang}).RunDemo(ctx, sessions[0], sessions[1]); err != nil {
		t.Fatalf("%s demo: %v\n%s", tour, err, buf.String())
	}
	var results []steps.KV
	for _, s := range sessions {
		for _, st := range s.Snapshot().Steps {
			if st.Outcome != nil {
				results = append(results, st.Outcome.Results...)
			}
		}
	}
	return buf.String(), results
}
