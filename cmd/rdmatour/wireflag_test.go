package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

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

// The wire's lessons as two processes on the simulated NIC (their faults
// are the simulated NIC's alone): each side gets only --lesson; a lost
// packet is recovered (the server has the message) or the retries run
// out, and both exit 0. lost-ack needs the server's NIC to tell the
// client's that it loses packets, so that the client's ACK timer runs.
func TestWireLessonsAsTwoProcesses(t *testing.T) {
	for _, tt := range []struct{ lesson, want string }{
		{"lost-write", "[server] RDMA-written buffer: "},
		{"lost-ack", "[server] RDMA-written buffer: "},
		{"peer-vanished", `RDMA_WRITE completion: status "transport retry counter exceeded"`},
		{"retry-zero", `RDMA_WRITE completion: status "transport retry counter exceeded"`},
		{"lost-read-response", "its RDMA READ fetched it"},
	} {
		t.Run(tt.lesson, func(t *testing.T) {
			args := []string{"--lesson", tt.lesson}
			o := runPair(t, "127.0.0.1", "", args, args, "--backend", "sim")
			if o.srvCode != 0 || o.cliCode != 0 {
				t.Fatalf("exit server %d client %d\nserver:\n%s\nclient:\n%s", o.srvCode, o.cliCode, o.srv, o.cli)
			}
			if !strings.Contains(o.srv+o.cli, tt.want) || strings.Contains(o.srv+o.cli, "Mismatch") {
				t.Errorf("output lacks %q (or a mismatch was seen)\nserver:\n%s\nclient:\n%s", tt.want, o.srv, o.cli)
			}
		})
	}
}

// --wire on a backend that cannot impair its wire is refused at the
// create-qp step, saying to use the simulated NIC; on the sim the step
// says what the faults are.
func TestWireFlagNeedsTheSimulatedNIC(t *testing.T) {
	p := start(t, nil, "demo", "--backend", "sim", "--port", freePort(t), "--plain", "--auto", "--brief", "--timeout", "30s", "--wire", "server:dup=1")
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out)
	}
	if out := p.out.String(); !strings.Contains(out, "--wire: this side's packets meet dup=1") || !strings.Contains(out, "tour complete") {
		t.Errorf("the server's create-qp does not name its faults, or the tour did not end:\n%s", out)
	}
	p = start(t, nil, "demo", "--backend", "sim", "--port", freePort(t), "--plain", "--auto", "--wire", "drop=x")
	if code := p.wait(t, 30*time.Second); code != 2 || !strings.Contains(p.out.String(), "not a packet number") {
		t.Errorf("--wire drop=x: exit %d, want 2 and the reason:\n%s", code, p.out)
	}
}
