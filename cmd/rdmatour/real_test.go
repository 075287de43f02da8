package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// These tests run only where real RDMA is set up: scripts/realverbs.sh
// runs them inside the QEMU guest with Soft-RoCE (rxe0 on 10.0.2.15),
// setting RDMATOUR_REAL_ADDR to the device's address and RDMATOUR_SEED_BIN
// to the seed C program built from testdata/seed.

func realAddr(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("RDMATOUR_REAL_ADDR")
	if addr == "" {
		t.Skip("set RDMATOUR_REAL_ADDR to an address on an RDMA device (scripts/realverbs.sh does, in a QEMU guest)")
	}
	return addr
}

func seedBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("RDMATOUR_SEED_BIN")
	if bin == "" {
		t.Skip("set RDMATOUR_SEED_BIN to the seed C program (scripts/qemu/build-seed.sh builds it)")
	}
	return bin
}

func TestRealTwoProcesses(t *testing.T) {
	addr := realAddr(t)
	for _, notify := range []string{"send", "doorbell", "imm"} {
		t.Run(notify, func(t *testing.T) {
			port := freePort(t)
			msg := "real " + notify + " over Soft-RoCE"
			srv := start(t, nil, "server", port, "--bind", addr, "--backend", "rdma", "--plain", "--auto", "--timeout", "60s")
			srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
			cli := start(t, nil, "client", addr, port, "--notify", notify, "--backend", "rdma", "--plain", "--auto", "--timeout", "60s", "--message", msg)
			if code := cli.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
			}
			if code := srv.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("server exit %d:\n%s", code, srv.out)
			}
			out := srv.out.String()
			for _, want := range []string{"[server] RDMA-written buffer: " + msg, "learned of the write via " + notify, "QP state = RTS", "live objects left = 0", "rxe0",
				"GID [1] ::ffff:" + addr, "sent_pkts +", "rcvd_pkts +"} {
				if !strings.Contains(out, want) && !strings.Contains(cli.out.String(), want) {
					t.Errorf("neither side printed %q\nserver:\n%s\nclient:\n%s", want, out, cli.out)
				}
			}
			if strings.Contains(out, "SIMULATED") {
				t.Errorf("--backend rdma ran on the simulated NIC:\n%s", out)
			}
			if notify == "send" {
				runRealTools(t, cli.out.String())
			}
		})
	}
}

// The seed's C client against rdmatour server, both notify modes.
func TestRealSeedClientAgainstRdmatourServer(t *testing.T) {
	addr, seed := realAddr(t), seedBin(t)
	for _, notify := range []string{"send", "doorbell"} {
		t.Run(notify, func(t *testing.T) {
			port := freePort(t)
			srv := start(t, nil, "server", port, "--bind", addr, "--backend", "rdma", "--plain", "--auto", "--timeout", "60s")
			srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
			cli := startRaw(t, seed, "client", addr, port, notify)
			if code := cli.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("seed client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
			}
			if code := srv.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("rdmatour server exit %d:\n%s", code, srv.out)
			}
			if !strings.Contains(srv.out.String(), "[server] RDMA-written buffer: hello from 108-41 client via RDMA WRITE") ||
				!strings.Contains(srv.out.String(), "learned of the write via "+notify) {
				t.Errorf("rdmatour server output:\n%s", srv.out)
			}
			if !strings.Contains(cli.out.String(), "[client] sent "+notify+" notification") {
				t.Errorf("seed client output:\n%s", cli.out)
			}
		})
	}
}

// rdmatour client against the seed's C server, both notify modes, and a
// WRITE of 3000 bytes (--message-size): three packets at rxe's path MTU,
// into the seed's 4096-byte buffer.
func TestRealRdmatourClientAgainstSeedServer(t *testing.T) {
	addr, seed := realAddr(t), seedBin(t)
	for _, tt := range []struct {
		name, notify, want string
		size               int // --message-size (0 = none)
	}{
		{"send", "send", "[server] received normal SEND: RDMA_WRITE_DONE", 0},
		{"doorbell", "doorbell", "[server] received doorbell value: 1", 0},
		{"send-3000-bytes", "send", "[server] received normal SEND: RDMA_WRITE_DONE", 3000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			port := freePort(t)
			srv := startRaw(t, "stdbuf", "-oL", seed, "server", port)
			srv.waitFor(t, "[server] listening on port "+port, 60*time.Second)
			msg := "rdmatour client to the seed server"
			args := []string{"client", addr, port, "--notify", tt.notify, "--backend", "rdma", "--plain", "--auto", "--timeout", "60s", "--message", msg}
			if tt.size > 0 {
				args = append(args, "--message-size", fmt.Sprint(tt.size))
				msg += strings.Repeat(" ", tt.size-1-len(msg)) + "\n" // the seed prints the whole string
			}
			cli := start(t, nil, args...)
			if code := cli.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("rdmatour client exit %d:\n%s\nseed server:\n%s", code, cli.out, srv.out)
			}
			if code := srv.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("seed server exit %d:\n%s", code, srv.out)
			}
			for _, want := range []string{tt.want, "[server] RDMA-written buffer: " + msg} {
				if !strings.Contains(srv.out.String(), want) {
					t.Errorf("seed server lacks %q:\n%s", want, srv.out)
				}
			}
			if !strings.Contains(cli.out.String(), "private_data_len = 196") {
				t.Errorf("client did not show the padded private data length:\n%s", cli.out)
			}
			if want := fmt.Sprintf(".byte_len = %d", tt.size); tt.size > 0 && !strings.Contains(cli.out.String(), want) {
				t.Errorf("the WRITE's completion lacks %s:\n%s", want, cli.out)
			}
		})
	}
}

func TestRealBadInput(t *testing.T) {
	addr := realAddr(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"nobody listening", []string{"client", addr, freePort(t), "--backend", "rdma", "--plain", "--auto", "--timeout", "30s"}, "nothing is listening"},
		{"no route to the address", []string{"client", "192.0.2.99", "--backend", "rdma", "--plain", "--auto", "--timeout", "30s"}, "ENETUNREACH"},
		{"nobody answers address resolution", []string{"client", "10.0.2.99", "--backend", "rdma", "--plain", "--auto", "--timeout", "30s"}, "RDMA_CM_EVENT_ADDR_ERROR"},
		{"loopback picks the simulated NIC and says why", []string{"client", "127.0.0.1", freePort(t), "--plain", "--auto", "--timeout", "5s"}, "127.0.0.1 is loopback, which no RDMA device serves: use a device's address: 10.0.2.15 (rxe0 on eth0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, nil, tt.args...)
			if code := p.wait(t, 90*time.Second); code == 0 {
				t.Fatalf("exit 0:\n%s", p.out)
			}
			if !strings.Contains(p.out.String(), tt.want) || strings.Contains(p.out.String(), "panic") {
				t.Errorf("output lacks %q:\n%s", tt.want, p.out)
			}
		})
	}
}

// Ctrl-C while a real wait is in progress: the server waiting for a
// client is interrupted, tears everything down and exits 130.
func TestRealInterruptWhileWaiting(t *testing.T) {
	addr := realAddr(t)
	interruptWaitingServer(t, "--bind", addr, "--backend", "rdma")
}

// A locked-memory limit of 0 for an unprivileged user: ibv_reg_mr fails
// (EPERM, measured on rxe) and the learner is told about ulimit -l.
func TestRealMemlockTooLow(t *testing.T) {
	addr := realAddr(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("needs setpriv (util-linux)")
	}
	// 0 KiB: ibv_reg_mr fails with EPERM at once. 8 KiB: the first MR
	// (one page) fits, a later one fails with ENOMEM.
	for _, tt := range []struct{ limit, errno string }{{"0", "EPERM"}, {"8", "ENOMEM"}} {
		script := "ulimit -S -l " + tt.limit + " && exec " + binPath + " client " + addr + " " + freePort(t) + " --backend rdma --plain --auto --brief --timeout 20s"
		p := startRaw(t, "setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--", "bash", "-c", script)
		code := p.wait(t, 60*time.Second)
		out := p.out.String()
		if code == 0 || !strings.Contains(out, "ulimit -l") || !strings.Contains(out, tt.errno) || !strings.Contains(out, "-- teardown --") {
			t.Errorf("ulimit -l %s: exit %d; want a failure with %s that explains ulimit -l, after a teardown:\n%s", tt.limit, code, tt.errno, out)
		}
	}
}

// The full-screen UI on the real device, in a real terminal (tmux inside
// the guest): the demo runs to the end and quits cleanly.
func TestRealTUIInTmux(t *testing.T) {
	addr := realAddr(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	sock := "rdmatour-real-" + freePort(t)
	tmux := func(args ...string) string {
		out, _ := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
		return string(out)
	}
	cmd := binPath + " demo --backend rdma --bind " + addr + " --port " + freePort(t) + "; echo EXIT=$?; sleep 60"
	tmux("new-session", "-d", "-x", "120", "-y", "40", cmd)
	t.Cleanup(func() { tmux("kill-server") })
	screen := func() string { return tmux("capture-pane", "-p") }
	waitScreen := func(want string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if s := screen(); strings.Contains(s, want) {
				return s
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("the screen never showed %q:\n%s", want, screen())
		return ""
	}
	waitScreen("0/35")
	for i := 1; i <= 35; i++ {
		tmux("send-keys", "Enter")
		waitScreen(fmt.Sprintf("%d/35", i))
	}
	s := waitScreen("hello from rdmatour client via RDMA WRITE")
	if strings.Contains(s, "SIMULATED") || !strings.Contains(s, "RDMA") {
		t.Errorf("the header does not show the real device:\n%s", s)
	}
	tmux("send-keys", "q")
	waitScreen("EXIT=0")
}

// A port held by one rdma_cm listener: binding the same address fails with
// EADDRINUSE, binding the wildcard with EADDRNOTAVAIL (measured on rxe);
// both are explained as a port in use.
func TestRealPortInUse(t *testing.T) {
	addr := realAddr(t)
	port := freePort(t)
	first := start(t, nil, "server", port, "--bind", addr, "--backend", "rdma", "--plain", "--auto", "--brief")
	first.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
	for _, tt := range []struct{ bind, want string }{
		{addr, "port " + port + " is already in use"},
		{"0.0.0.0", "port " + port + " is already taken by an RDMA listener"},
	} {
		p := start(t, nil, "server", port, "--bind", tt.bind, "--backend", "rdma", "--plain", "--auto", "--brief")
		if code := p.wait(t, 30*time.Second); code != 1 || !strings.Contains(p.out.String(), tt.want) {
			t.Errorf("bind %s: exit %d, want 1 and %q:\n%s", tt.bind, code, tt.want, p.out)
		}
	}
}

// A server that quits cleanly (Ctrl-C: teardown, DREQ) while the client is
// about to WRITE: rxe drops the WRITE at the server, the client's NIC
// retries until retry_count runs out (about 2.5 s on rxe under TCG) and
// the client says the server has gone.
func TestRealPeerQuitsBeforeWrite(t *testing.T) {
	addr := realAddr(t)
	peerQuitsBeforeWrite(t, addr, []string{"--bind", addr}, "--backend", "rdma")
}

// exportDir is where scripts/realverbs.sh put the programs `rdmatour
// export-c` wrote, built with -Wall -Werror: exported-server and
// exported-client-<notify>.
func exportDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("RDMATOUR_EXPORT_DIR")
	if dir == "" {
		t.Skip("set RDMATOUR_EXPORT_DIR to the built export-c programs (scripts/realverbs.sh does)")
	}
	return dir
}

// The exported C client against rdmatour server, and rdmatour client
// against the exported C server, every notify mode.
func TestRealExportedC(t *testing.T) {
	addr, dir := realAddr(t), exportDir(t)
	for _, notify := range []string{"send", "doorbell", "imm"} {
		t.Run("exported client/"+notify, func(t *testing.T) {
			port := freePort(t)
			srv := start(t, nil, "server", port, "--bind", addr, "--backend", "rdma", "--plain", "--auto", "--brief", "--timeout", "60s")
			srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
			cli := startRaw(t, dir+"/exported-client-"+notify, "client", addr, port, notify)
			if code := cli.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("exported client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
			}
			if code := srv.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("rdmatour server exit %d:\n%s", code, srv.out)
			}
			for _, want := range []string{"[server] RDMA-written buffer: hello from rdmatour client via RDMA WRITE", "learned of the write via " + notify} {
				if !strings.Contains(srv.out.String(), want) {
					t.Errorf("rdmatour server lacks %q:\n%s", want, srv.out)
				}
			}
		})
		t.Run("exported server/"+notify, func(t *testing.T) {
			port := freePort(t)
			srv := startRaw(t, "stdbuf", "-oL", dir+"/exported-server", "server", port)
			srv.waitFor(t, "[server] listening on port "+port, 60*time.Second)
			msg := "rdmatour client to the exported server"
			cli := start(t, nil, "client", addr, port, "--notify", notify, "--backend", "rdma", "--plain", "--auto", "--brief", "--timeout", "60s", "--message", msg)
			if code := cli.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("rdmatour client exit %d:\n%s\nexported server:\n%s", code, cli.out, srv.out)
			}
			if code := srv.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("exported server exit %d:\n%s", code, srv.out)
			}
			how := map[string]string{"send": "[server] received SEND: RDMA_WRITE_DONE", "doorbell": "[server] received doorbell value: 1",
				"imm": "[server] received imm_data 0x1234abcd"}[notify]
			for _, want := range []string{how, "[server] RDMA-written buffer: " + msg} {
				if !strings.Contains(srv.out.String(), want) {
					t.Errorf("exported server lacks %q:\n%s", want, srv.out)
				}
			}
		})
	}
}
