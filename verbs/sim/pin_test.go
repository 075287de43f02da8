package sim

import (
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// simPD is a PD on a fresh simulated NIC whose process has CAP_IPC_LOCK
// or not, as capIPCLock says.
func simPD(t *testing.T, capIPCLock bool) (*Provider, verbs.PD) {
	t.Helper()
	p := New(Options{CapIPCLock: func() bool { return capIPCLock }})
	ch, err := p.CreateEventChannel()
	must(t, err)
	id, err := ch.CreateID(verbs.PSTCP)
	must(t, err)
	must(t, id.BindAddr(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0)))
	pd, err := id.Device().AllocPD()
	must(t, err)
	t.Cleanup(func() { pd.Dealloc(); id.Destroy(); ch.Destroy() })
	return p, pd
}

// The pinned-memory rules of ib_umem_get, as the memlock lesson meets
// them: nothing changes until LimitPinning; then 0 bytes is EPERM, too
// few pages ENOMEM, deregistering gives pages back, CAP_IPC_LOCK lifts
// the limit, and restore ends it.
func TestPinLimit(t *testing.T) {
	p, pd := simPD(t, false)
	big, err := pd.RegMR(64<<20, verbs.AccessLocalWrite) // no limit set: 16384 pages are fine
	must(t, err)
	must(t, big.Dereg())
	first, err := pd.RegMR(4096, verbs.AccessLocalWrite) // one page pinned before the limit
	must(t, err)

	restore, err := p.LimitPinning(0)
	must(t, err)
	_, err = pd.RegMR(64, verbs.AccessLocalWrite)
	wantErrno(t, err, "ibv_reg_mr", syscall.EPERM)
	must(t, restore())

	restore, err = p.LimitPinning(8192) // two pages, one of them taken
	must(t, err)
	second, err := pd.RegMR(100, verbs.AccessLocalWrite)
	must(t, err)
	_, err = pd.RegMR(100, verbs.AccessLocalWrite)
	wantErrno(t, err, "ibv_reg_mr", syscall.ENOMEM)
	must(t, second.Dereg())
	third, err := pd.RegMR(4096, verbs.AccessLocalWrite) // the page came back
	must(t, err)
	must(t, restore())
	fourth, err := pd.RegMR(1<<20, verbs.AccessLocalWrite) // restored: no limit again
	must(t, err)
	for _, m := range []verbs.MR{first, third, fourth} {
		must(t, m.Dereg())
	}

	root, rootPD := simPD(t, true)
	if _, err := root.LimitPinning(1024); err != nil {
		t.Fatal(err)
	}
	m, err := rootPD.RegMR(1<<20, verbs.AccessLocalWrite)
	if err != nil {
		t.Fatalf("with CAP_IPC_LOCK the limit must not apply: %v", err)
	}
	must(t, m.Dereg())
}

// An address of this host on an interface sim0 does not sit on (one put
// on lo) resolves to RDMA_CM_EVENT_ADDR_ERROR with -ENODEV, as on rxe
// (TestRxeResolveAddrFailures); 127.0.0.1 still resolves.
func TestResolveOnOtherNetdev(t *testing.T) {
	const onLo = "10.99.0.1"
	if os.Geteuid() != 0 {
		t.Skip("needs root to put an address on lo")
	}
	if out, err := exec.Command("ip", "addr", "add", onLo+"/32", "dev", "lo").CombinedOutput(); err != nil && !strings.Contains(string(out), "exists") {
		t.Skipf("ip addr add: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "addr", "del", onLo+"/32", "dev", "lo").Run() })
	p := New(Options{})
	if p.dev.netdev == "lo" {
		t.Skip("sim0 sits on lo here (no other interface with IPv4)")
	}
	for dst, want := range map[string]int{onLo: -int(syscall.ENODEV), "127.0.0.1": 0} {
		ch, err := p.CreateEventChannel()
		must(t, err)
		id, err := ch.CreateID(verbs.PSTCP)
		must(t, err)
		must(t, id.ResolveAddr(netip.AddrPort{}, netip.AddrPortFrom(netip.MustParseAddr(dst), 7471), time.Second))
		wantType := verbs.EventAddrResolved
		if want != 0 {
			wantType = verbs.EventAddrError
		}
		if ev := waitEvent(t, ch, wantType); ev.Status != want {
			t.Errorf("%s: status %d, want %d", dst, ev.Status, want)
		}
		must(t, id.Destroy())
		must(t, ch.Destroy())
	}
}
