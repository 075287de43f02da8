package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// setupLessons are the lessons whose client fails in its setup, before
// any connect request: what each prints, the same on the simulated NIC
// and on rxe. unprivileged runs the lesson as nobody (memlock: root's
// CAP_IPC_LOCK lifts RLIMIT_MEMLOCK).
var setupLessons = []struct {
	lesson       string
	unprivileged bool
	loAddr       bool // the lesson needs an address on lo (no-such-address)
	want         []string
}{
	{"no-such-address", false, true, []string{"htonl(0x0a630001 /* 10.99.0.1 */) }, 2000); /* = 0 */", "RDMA_CM_EVENT_ADDR_ERROR, status -19", "EXPECTED ERROR"}},
	{"remote-write-without-local", false, false, []string{"IBV_ACCESS_REMOTE_WRITE /* lesson remote-write-without-local: was IBV_ACCESS_LOCAL_WRITE */); /* = NULL, errno = EINVAL */", "EXPECTED ERROR"}},
	{"memlock", true, false, []string{"setrlimit(RLIMIT_MEMLOCK, &memlock); /* = 0 */", "this process has CAP_IPC_LOCK = false", "/* = NULL, errno = ENOMEM */", "EXPECTED ERROR", "setrlimit(RLIMIT_MEMLOCK, &old_memlock); /* = 0 */"}},
}

// runSetupLessons runs each setup lesson as `rdmatour demo` on backend:
// the client's step fails as the lesson expects, both sides tear down,
// and the tour completes.
func runSetupLessons(t *testing.T, backend ...string) {
	for _, tt := range setupLessons {
		t.Run(tt.lesson, func(t *testing.T) {
			var wrap []string
			if tt.unprivileged {
				wrap = unprivileged(t)
			}
			if tt.loAddr {
				addrOnLo(t, steps.NoDeviceAddr)
			}
			args := append([]string{"demo", "--lesson", tt.lesson, "--port", freePort(t), "--plain", "--auto", "--brief", "--timeout", "20s"}, backend...)
			p := startRaw(t, append(wrap, append([]string{binPath}, args...)...)...)
			if code := p.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("exit %d:\n%s", code, p.out)
			}
			out := p.out.String()
			for _, want := range append(tt.want, "tour complete") {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "but the call succeeded") || strings.Contains(out, "RDMA_CM_EVENT_CONNECT_REQUEST") {
				t.Errorf("the lesson's step did not fail, or a connection was made:\n%s", out)
			}
		})
	}
}

// unprivileged is the command prefix that runs rdmatour as nobody,
// without CAP_IPC_LOCK, with a copy of the binary and a state directory
// nobody can use; binPath is pointed at the copy for the caller.
func unprivileged(t *testing.T) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("needs setpriv (util-linux)")
	}
	dir, err := os.MkdirTemp("", "rdmatour-nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if !worldRunnable(binPath) { // a copy only where nobody cannot run it (a copy over the guest's 9p is slow)
		bin := filepath.Join(dir, "rdmatour")
		copyFile(t, binPath, bin)
		old := binPath
		binPath = bin
		t.Cleanup(func() { binPath = old })
	}
	return []string{"env", "XDG_STATE_HOME=" + dir, "HOME=" + dir, "setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--"}
}

// addrOnLo gives lo the address a/32 for the test, unless it has it:
// an address of this host on an interface no RDMA device sits on.
func addrOnLo(t *testing.T, a string) {
	t.Helper()
	if out, _ := exec.Command("ip", "-br", "addr", "show", "dev", "lo").CombinedOutput(); strings.Contains(string(out), " "+a+"/") {
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to add " + a + " to lo")
	}
	if out, err := exec.Command("ip", "addr", "add", a+"/32", "dev", "lo").CombinedOutput(); err != nil {
		t.Skipf("cannot add %s to lo: %v %s", a, err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "addr", "del", a+"/32", "dev", "lo").Run() })
}

// worldRunnable: any user can reach and run the file at path.
func worldRunnable(path string) bool {
	for p := path; p != "/" && p != "."; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
	}
	return true
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSetupLessonsOnSimulatedNIC(t *testing.T) {
	runSetupLessons(t, "--backend", "sim")
}

func TestRealSetupLessons(t *testing.T) {
	addr := realAddr(t)
	runSetupLessons(t, "--backend", "rdma", "--bind", addr)
}
