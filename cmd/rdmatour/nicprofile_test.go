package main

import (
	"strings"
	"testing"
	"time"
)

// --backend sim --nic strict: the header says which profile runs and how
// it differs from rxe, the keys differ, the tour completes; --nic strict
// without the simulated NIC is refused with the flag to add.
func TestStrictNICProfile(t *testing.T) {
	p := start(t, nil, "demo", "--backend", "sim", "--nic", "strict", "--port", freePort(t), "--plain", "--auto", "--brief", "--timeout", "20s")
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out)
	}
	out := p.out.String()
	for _, want := range []string{"the strict profile, not rxe", "lkey ≠ rkey (rxe: equal)", "max_qp_rd_atom 4 (rxe: 128)", "GID 0 RoCE v1 and GID 1 RoCE v2", "tour complete"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, ".rkey = 0x800") {
		t.Errorf("no rkey of the strict profile's form (index bit 23 set):\n%s", out)
	}

	for _, args := range [][]string{{"demo", "--nic", "strict"}, {"demo", "--backend", "rdma", "--nic", "strict"}} {
		p := start(t, nil, append(args, "--plain", "--auto")...)
		if code := p.wait(t, 20*time.Second); code != 2 || !strings.Contains(p.out.String(), "add --backend sim") {
			t.Errorf("%v: exit %d, want 2 and the fix:\n%s", args, code, p.out)
		}
	}
	p = start(t, nil, "demo", "--backend", "sim", "--nic", "mlx5", "--plain", "--auto")
	if code := p.wait(t, 20*time.Second); code != 2 || !strings.Contains(p.out.String(), "use rxe or strict") {
		t.Errorf("--nic mlx5: exit %d, want 2 and the choices:\n%s", code, p.out)
	}
}

// --completion event as one process (the demo's two sides), on the
// simulated NIC and on rxe: the channel, the CQ on it, the arm, the tour
// to its end; an unknown mode is refused with the choices.
func runCompletionEvents(t *testing.T, backend ...string) {
	args := append([]string{"demo", "--completion", "event", "--port", freePort(t), "--plain", "--auto", "--brief", "--timeout", "20s"}, backend...)
	p := start(t, nil, args...)
	if code := p.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out)
	}
	out := p.out.String()
	for _, want := range []string{"channel = ibv_create_comp_channel(id->verbs);", "cq = ibv_create_cq(id->verbs, 16, NULL, channel, 0);", "ibv_req_notify_cq(cq, 0); /* = 0 */", "ibv_destroy_comp_channel(channel); /* = 0 */", "tour complete"} {
		if strings.Count(out, want) < 2 && want != "tour complete" || !strings.Contains(out, want) {
			t.Errorf("output lacks %q on both sides:\n%s", want, out)
		}
	}
}

func TestCompletionEventsAsProcess(t *testing.T) {
	runCompletionEvents(t, "--backend", "sim")
	p := start(t, nil, "demo", "--completion", "busy", "--plain", "--auto")
	if code := p.wait(t, 20*time.Second); code != 2 || !strings.Contains(p.out.String(), "use poll or event") {
		t.Errorf("--completion busy: exit %d, want 2 and the choices:\n%s", code, p.out)
	}
}

func TestRealCompletionEvents(t *testing.T) {
	addr := realAddr(t)
	runCompletionEvents(t, "--backend", "rdma", "--bind", addr)
}
