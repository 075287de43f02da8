package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binPath is the rdmatour binary built once for the process tests.
var binPath string

func TestMain(m *testing.M) {
	// The processes keep their progress in a directory of their own, not
	// in the home of whoever runs the tests.
	// (A few bytes left in the temporary directory: os.Exit runs no
	// deferred cleanup.)
	if state, err := os.MkdirTemp("", "rdmatour-state"); err == nil {
		os.Setenv("XDG_STATE_HOME", state)
	}
	// Inside the QEMU guest compiling is slow: use the binary built outside.
	if bin := os.Getenv("RDMATOUR_BIN"); bin != "" {
		binPath = bin
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "rdmatour-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "rdmatour")
	build := exec.Command("go", "build", "-o", binPath, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building rdmatour:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a running rdmatour process with its output captured.
type proc struct {
	cmd   *exec.Cmd
	out   *syncBuffer
	stdin io.WriteCloser
	done  chan struct{}
	err   error
}

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

// start runs the binary; wrap (e.g. "ip netns exec NS") prefixes it.
func start(t testing.TB, wrap []string, args ...string) *proc {
	t.Helper()
	argv := append(append([]string{}, wrap...), binPath)
	return startRaw(t, append(argv, args...)...)
}

// startRaw runs any program with its output captured.
func startRaw(t testing.TB, argv ...string) *proc {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	p := &proc{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	cmd.Env = append(os.Environ(), "LANG=C")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait returns the exit code, failing the test if it takes longer than d.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("%v did not exit within %v; output:\n%s", p.cmd.Args, d, p.out)
	}
	if p.err == nil {
		return 0
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	t.Fatalf("%v: %v", p.cmd.Args, p.err)
	return -1
}

// waitFor waits until the output contains s.
func (p *proc) waitFor(t *testing.T, s string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(p.out.String(), s) {
			return
		}
		select {
		case <-p.done:
			if strings.Contains(p.out.String(), s) {
				return
			}
			t.Fatalf("%v exited before printing %q:\n%s", p.cmd.Args, s, p.out)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("%v did not print %q within %v:\n%s", p.cmd.Args, s, d, p.out)
}

// freePort finds a port nobody uses right now. It picks below the
// kernel's ephemeral range (32768-60999 by default), so that the many
// short TCP connections the parallel tests open cannot take the port
// between this check and the server's bind, and never hands out the same
// port twice in one test binary. RDMATOUR_TEST_PORTS=LOW-HIGH gives this
// binary a range of its own: scripts/realverbs.sh runs three test binaries
// at once in one guest, where rdma_cm's port space is not the TCP one, so
// the TCP check alone would not keep two binaries off the same rdma_cm port.
func freePort(t testing.TB) string {
	t.Helper()
	ports.mu.Lock()
	defer ports.mu.Unlock()
	low, span := portRange(t)
	for i := 0; i < 200; i++ {
		ports.next++
		p := low + (os.Getpid()*7+ports.next)%span
		l, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", p))
		if err != nil {
			continue
		}
		l.Close()
		return fmt.Sprint(p)
	}
	t.Fatalf("no free port in %d-%d", low, low+span-1)
	return ""
}

// portRange is freePort's range: 20000-31999, or RDMATOUR_TEST_PORTS.
func portRange(t testing.TB) (low, span int) {
	r := os.Getenv("RDMATOUR_TEST_PORTS")
	if r == "" {
		return 20000, 12000
	}
	var high int
	if n, err := fmt.Sscanf(r, "%d-%d", &low, &high); n != 2 || err != nil || low < 1024 || high > 65535 || high <= low {
		t.Fatalf("RDMATOUR_TEST_PORTS=%q: want LOW-HIGH, e.g. 20000-23999", r)
	}
	return low, high - low + 1
}

// ports is freePort's memory of what it handed out.
var ports struct {
	mu   sync.Mutex
	next int
}

func runTourProcesses(t *testing.T, wrapSrv, wrapCli []string, serverIP, bind, notify string) {
	t.Helper()
	port := freePort(t)
	msg := "hello " + notify + " from the process test"
	srvArgs := []string{"server", "--port", port, "--backend", "sim", "--plain", "--auto", "--timeout", "20s"}
	if bind != "" {
		srvArgs = append(srvArgs, "--bind", bind)
	}
	srv := start(t, wrapSrv, srvArgs...)
	srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 20*time.Second)
	cli := start(t, wrapCli, "client", serverIP, port, "--notify", notify, "--backend", "sim", "--plain", "--auto", "--timeout", "20s", "--message", msg)
	if code := cli.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
	}
	if code := srv.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	out := srv.out.String()
	if !strings.Contains(out, "[server] RDMA-written buffer: "+msg) {
		t.Errorf("server did not print the written message:\n%s", out)
	}
	if !strings.Contains(out, "learned of the write via "+notify) {
		t.Errorf("server did not learn via %s:\n%s", notify, out)
	}
	if !strings.Contains(out, "SIMULATED NIC") || !strings.Contains(cli.out.String(), "SIMULATED NIC") {
		t.Errorf("the simulated NIC is not labelled as such")
	}
}

func TestTwoProcessesOnLoopback(t *testing.T) {
	for _, notify := range []string{"send", "doorbell", "imm"} {
		t.Run(notify, func(t *testing.T) {
			runTourProcesses(t, nil, nil, "127.0.0.1", "", notify)
		})
	}
}

// TestTwoHostsInNetworkNamespaces runs server and client in two network
// namespaces joined by a veth pair: two hosts with their own addresses.
func TestTwoHostsInNetworkNamespaces(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs the ip command (iproute2)")
	}
	suffix := fmt.Sprint(os.Getpid() % 100000)
	a, b := "rdmatourA"+suffix, "rdmatourB"+suffix
	va, vb := "rta"+suffix, "rtb"+suffix
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v\n%s", args, err, out)
		}
	}
	run("netns", "add", a)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", a).Run() })
	run("netns", "add", b)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", b).Run() })
	run("link", "add", va, "type", "veth", "peer", "name", vb)
	run("link", "set", va, "netns", a)
	run("link", "set", vb, "netns", b)
	run("-n", a, "addr", "add", "192.168.77.1/24", "dev", va)
	run("-n", b, "addr", "add", "192.168.77.2/24", "dev", vb)
	for _, ns := range []struct{ ns, dev string }{{a, va}, {b, vb}} {
		run("-n", ns.ns, "link", "set", ns.dev, "up")
		run("-n", ns.ns, "link", "set", "lo", "up")
	}
	for _, notify := range []string{"send", "doorbell", "imm"} {
		t.Run(notify, func(t *testing.T) {
			runTourProcesses(t, []string{"ip", "netns", "exec", a}, []string{"ip", "netns", "exec", b},
				"192.168.77.1", "192.168.77.1", notify)
		})
	}
}

// Bad input: each case exits non-zero with a one-line message saying what
// happened and what to do, and never hangs.
func TestBadInput(t *testing.T) {
	busy, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := fmt.Sprint(busy.Addr().(*net.TCPAddr).Port)

	// A peer that is not rdmatour: answers every connection with junk.
	junk, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer junk.Close()
	go func() {
		for {
			c, err := junk.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\nthis is not rdma\n"))
			time.Sleep(100 * time.Millisecond)
			c.Close()
		}
	}()
	junkPort := fmt.Sprint(junk.Addr().(*net.TCPAddr).Port)

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown command", []string{"serve"}, 2, `unknown command "serve"`},
		{"unknown flag", []string{"server", "--colour"}, 2, "flag provided but not defined: -colour"},
		{"port out of range", []string{"server", "70000"}, 2, "out of range"},
		{"port zero", []string{"client", "127.0.0.1", "--port", "0"}, 2, "out of range"},
		{"unknown notify", []string{"client", "127.0.0.1", "--notify", "carrier-pigeon"}, 2, "unknown notify mode"},
		{"unknown positional notify", []string{"client", "127.0.0.1", "7471", "10.0.0.9", "pigeon"}, 2, "unknown notify mode: pigeon"},
		{"client without server", []string{"client"}, 2, "client needs the server's address"},
		{"invalid server address", []string{"client", "no-such-host.invalid", "--backend", "sim", "--plain"}, 2, `cannot resolve "no-such-host.invalid"`},
		{"port in use", []string{"server", busyPort, "--backend", "sim", "--plain", "--auto"}, 1, "port " + busyPort + " is already in use"},
		{"nobody listening", []string{"client", "127.0.0.1", freePort(t), "--backend", "sim", "--plain", "--auto", "--timeout", "5s"}, 1, "nothing is listening"},
		{"garbage peer", []string{"client", "127.0.0.1", junkPort, "--backend", "sim", "--plain", "--auto", "--timeout", "5s"}, 1, "did not answer as an RDMA server"},
		{"real backend without RDMA", []string{"client", "127.0.0.1", "--backend", "rdma", "--plain", "--auto"}, 1, "real RDMA is not usable here"},
		{"bind to a foreign address", []string{"server", "--bind", "203.0.113.7", "--backend", "sim", "--plain", "--auto"}, 1, "is not an address of this machine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, nil, tt.args...)
			code := p.wait(t, 30*time.Second)
			out := p.out.String()
			if code != tt.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tt.code, out)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
			if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
				t.Errorf("output shows a panic:\n%s", out)
			}
		})
	}
}

// A peer killed with SIGKILL while the other side waits: the waiting side
// notices within --timeout and exits non-zero after tearing down.
func TestPeerKilledMidTour(t *testing.T) {
	tests := []struct {
		name      string
		victim    string // "client" or "server": the one killed
		pauseAt   string // where the victim stops before being killed
		waiterAt  string // what the surviving side prints while waiting
		timeout   string
		maxNotice time.Duration
	}{
		{"client killed while the server waits for the notification", "client", "post-write", "Wait for the client's notification", "8s", 20 * time.Second},
		{"server killed while the client waits for ESTABLISHED", "server", "accept", "Wait for ESTABLISHED", "8s", 20 * time.Second},
		{"client killed while the server waits for ESTABLISHED", "client", "get-established", "rdma_accept(", "8s", 20 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := freePort(t)
			srvArgs := []string{"server", port, "--backend", "sim", "--plain", "--auto", "--timeout", tt.timeout}
			cliArgs := []string{"client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--timeout", tt.timeout}
			if tt.victim == "server" {
				srvArgs = append(srvArgs, "--pause-at", tt.pauseAt)
			} else {
				cliArgs = append(cliArgs, "--pause-at", tt.pauseAt)
			}
			srv := start(t, nil, srvArgs...)
			srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 20*time.Second)
			cli := start(t, nil, cliArgs...)
			victim, waiter := cli, srv
			if tt.victim == "server" {
				victim, waiter = srv, cli
			}
			victim.waitFor(t, "paused before "+tt.pauseAt, 20*time.Second)
			waiter.waitFor(t, tt.waiterAt, 20*time.Second)
			victim.cmd.Process.Signal(syscall.SIGKILL)
			killed := time.Now()
			code := waiter.wait(t, tt.maxNotice)
			if code == 0 {
				t.Fatalf("the surviving side exited 0 after its peer was killed:\n%s", waiter.out)
			}
			t.Logf("noticed after %v", time.Since(killed).Round(time.Millisecond))
			out := waiter.out.String()
			if !strings.Contains(out, "-- teardown --") {
				t.Errorf("no teardown after the peer vanished:\n%s", out)
			}
			if strings.Contains(out, "panic") {
				t.Errorf("panic:\n%s", out)
			}
		})
	}
}

func TestInterruptTearsDown(t *testing.T) {
	interruptWaitingServer(t, "--backend", "sim")
}

// interruptWaitingServer starts a server, interrupts it while it waits for
// a client, and checks it exits 130 after a full teardown.
func interruptWaitingServer(t *testing.T, args ...string) {
	t.Helper()
	p := start(t, nil, append([]string{"server", freePort(t), "--plain", "--auto"}, args...)...)
	p.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
	time.Sleep(200 * time.Millisecond) // inside rdma_get_cm_event's wait by now
	p.cmd.Process.Signal(os.Interrupt)
	code := p.wait(t, 30*time.Second)
	out := p.out.String()
	if code != 130 || !strings.Contains(out, "rdma_destroy_event_channel(ec);") {
		t.Errorf("exit %d, want 130 with a teardown:\n%s", code, out)
	}
}

// Garbage on the server's port (a port scanner, a stray HTTP client) must
// neither crash the server nor keep a real client out.
func TestServerSurvivesGarbage(t *testing.T) {
	port := freePort(t)
	srv := start(t, nil, "server", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "20s")
	srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 20*time.Second)
	for _, junk := range [][]byte{[]byte("GET / HTTP/1.0\r\n\r\n"), bytes.Repeat([]byte{0xff}, 70000), {}} {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(junk)
		c.Close()
	}
	cli := start(t, nil, "client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "20s")
	if code := cli.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("client exit %d after garbage hit the server:\n%s\nserver:\n%s", code, cli.out, srv.out)
	}
	if code := srv.wait(t, 60*time.Second); code != 0 || !strings.Contains(srv.out.String(), "[server] RDMA-written buffer: ") {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
}

func TestPeerQuitsBeforeWrite(t *testing.T) {
	peerQuitsBeforeWrite(t, "127.0.0.1", nil, "--backend", "sim")
}

// peerQuitsBeforeWrite: the client pauses before its WRITE while the
// server waits for the notification; the server gets Ctrl-C, tears down
// cleanly (DREQ) and exits; then the client posts its WRITE. Nobody
// acknowledges it: the client must say the server has gone, with the
// transport's own error, long before its --timeout (30 s).
// srvArgs go to the server only, args to both.
func peerQuitsBeforeWrite(t *testing.T, host string, srvArgs []string, args ...string) {
	t.Helper()
	port := freePort(t)
	srvArgs = append(append([]string{"server", port, "--plain", "--auto", "--brief", "--timeout", "60s"}, srvArgs...), args...)
	srv := start(t, nil, srvArgs...)
	srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
	cli := start(t, nil, append([]string{"client", host, port, "--plain", "--auto", "--brief", "--timeout", "30s", "--pause-at", "post-write"}, args...)...)
	cli.waitFor(t, "paused before post-write", 60*time.Second)
	srv.waitFor(t, "Wait for the client's notification", 60*time.Second)
	time.Sleep(200 * time.Millisecond) // inside the wait by now
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 60*time.Second); code != 130 {
		t.Fatalf("server exit %d, want 130:\n%s", code, srv.out)
	}
	resumed := time.Now()
	fmt.Fprintln(cli.stdin)
	code := cli.wait(t, 60*time.Second)
	took := time.Since(resumed)
	t.Logf("the client's WRITE failed %v after it was posted", took.Round(time.Millisecond))
	out := cli.out.String()
	if i := strings.LastIndex(out, "rdmatour: "); i >= 0 {
		t.Logf("the client said: %s", strings.TrimSpace(out[i:]))
	}
	if code != 1 || !strings.Contains(out, "the server has gone (it disconnected)") ||
		!strings.Contains(out, "transport retry counter exceeded") || !strings.Contains(out, "Start both sides again") ||
		!strings.Contains(out, "-- teardown --") || strings.Contains(out, "panic") {
		t.Errorf("client exit %d; want 1 saying the server has gone, with the retry error and a teardown:\n%s", code, out)
	}
	if took > 20*time.Second {
		t.Errorf("the client took %v: it waited for its --timeout instead of the transport's retries", took)
	}
}
