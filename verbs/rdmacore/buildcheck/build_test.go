//go:build linux

package buildcheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBuildNeedsNoRdmaCoreHeaders builds rdmatour's C where the
// rdma-core headers cannot be seen: in a private mount namespace, empty
// tmpfs mounts hide /usr/include/infiniband and /usr/include/rdma. A
// nonce in CGO_CFLAGS keeps the build cache from answering for the C
// compiler (Go does not track system headers), and including
// <infiniband/verbs.h> there must fail, so the hiding itself is checked.
// verbs/rdmacore is the one package of rdmatour's with C in it (checked
// first, with go list), so it is what is built there: the whole binary
// recompiled every package that imports net for the nonce, 42 s of CI.
func TestBuildNeedsNoRdmaCoreHeaders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rdmatour from scratch (-short)")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for a private mount namespace (unshare -m)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	gobin, root := goTool(t)
	cc := cCompiler(t)
	onlyCgoPackage(t, gobin, root, "github.com/rdmatour/rdmatour/verbs/rdmacore")
	bin := filepath.Join(t.TempDir(), "rdmacore.a")
	script := `set -e
for d in /usr/include/infiniband /usr/include/rdma; do
	if [ -d "$d" ]; then mount -t tmpfs rdmatour-hide "$d"; fi
done
if echo '#include <infiniband/verbs.h>' | "$CC" -fsyntax-only -x c - 2>/dev/null; then
	echo "the rdma-core headers are still visible" >&2
	exit 3
fi
"$GO" build -o "$BIN" ./verbs/rdmacore
"$GO" vet ./verbs/rdmacore
`
	cmd := exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GO="+gobin, "CC="+cc, "BIN="+bin, "CGO_ENABLED=1",
		fmt.Sprintf("CGO_CFLAGS=-O2 -g -DRDMATOUR_UNCACHED=%d", time.Now().UnixNano()))
	out, err := cmd.CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "unshare failed") || strings.Contains(string(out), "Operation not permitted") {
			t.Skipf("no mount namespace here: %s", out)
		}
		t.Fatalf("build without the rdma-core headers: %v\n%s", err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no package archive: %v", err)
	}
}

// onlyCgoPackage checks that want is the one package of rdmatour's own
// among the binary's dependencies with C files (the standard library's
// runtime/cgo, net and os/user need no rdma-core headers).
func onlyCgoPackage(t *testing.T, gobin, root, want string) {
	t.Helper()
	list := exec.Command(gobin, "list", "-deps", "-f", "{{if and .CgoFiles (not .Standard)}}{{.ImportPath}}{{end}}", "./cmd/rdmatour")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if got := strings.Fields(string(out)); len(got) != 1 || got[0] != want {
		t.Fatalf("rdmatour's packages with C: %v, want only %s: build each without the headers here", got, want)
	}
}

// TestSimOnlyBuildSaysSo builds rdmatour with CGO_ENABLED=0 and checks
// that the binary explains, wherever real verbs are asked for, that it
// has only the simulated NIC and how to get real verbs.
func TestSimOnlyBuildSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rdmatour (-short)")
	}
	gobin, root := goTool(t)
	bin := filepath.Join(t.TempDir(), "rdmatour")
	build := exec.Command(gobin, "build", "-o", bin, "./cmd/rdmatour")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"devices"}, []string{"rdmatour devices: this rdmatour was built without cgo",
			"only the simulated NIC", "rebuild it with CGO_ENABLED=1 and a C compiler (gcc)"}},
		{[]string{"demo", "--backend", "rdma"}, []string{"--backend rdma: no real verbs in this rdmatour",
			"built without cgo", "Use --backend sim"}},
		{[]string{"doctor"}, []string{"built without cgo", "rdmatour demo --backend sim"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, c.args...)
			cmd.Env = append(os.Environ(), "LANG=C")
			out, err := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 {
				t.Errorf("exit %d (%v), want 1", code, err)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// goTool finds the go command and the module's root directory.
func goTool(t *testing.T) (gobin, root string) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(gobin, "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env GOMOD: %v %s", err, out)
	}
	return gobin, filepath.Dir(strings.TrimSpace(string(out)))
}
