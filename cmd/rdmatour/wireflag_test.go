package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// --wire's side prefixes: a bare term is the side the command runs (the
// demo's client), server:/client: pick one; a bad term is refused whole.
func TestWireFlagSides(t *testing.T) {
	for _, tt := range []struct {
		cmd            command
		in             string
		server, client verbs.WireFaults
	}{
		{cmdClient, "drop=2", verbs.WireFaults{}, verbs.WireFaults{Drop: []int{2}}},
		{cmdServer, "drop=1", verbs.WireFaults{Drop: []int{1}}, verbs.WireFaults{}},
		{cmdDemo, "drop=2 server:drop=1", verbs.WireFaults{Drop: []int{1}}, verbs.WireFaults{Drop: []int{2}}},
		{cmdDemo, "server:loss=100%", verbs.WireFaults{LossPercent: 100}, verbs.WireFaults{}},
	} {
		w, err := parseWireFaults(tt.in)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if got := w.of(steps.Server, tt.cmd); !reflect.DeepEqual(got, tt.server) {
			t.Errorf("%s %q: server %+v, want %+v", tt.cmd, tt.in, got, tt.server)
		}
		if got := w.of(steps.Client, tt.cmd); !reflect.DeepEqual(got, tt.client) {
			t.Errorf("%s %q: client %+v, want %+v", tt.cmd, tt.in, got, tt.client)
		}
	}
	if _, err := parseWireFaults("server:drop=0"); err == nil || !strings.Contains(err.Error(), "not a packet number") {
		t.Errorf("server:drop=0: %v, want it refused", err)
	}
}
