//go:build linux && cgo

package rdmacore

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// How rdma_resolve_addr fails on rxe, by the kind of address (the
// no-such-address lesson's page): an address of this host on an
// interface with no RDMA device (one put on lo) is ADDR_ERROR -ENODEV at
// once; an unused address on the device's subnet is ADDR_ERROR
// -ETIMEDOUT after the timeout (nobody answers ARP); an address with no
// route makes the call itself fail with ENETUNREACH.
func TestRxeResolveAddrFailures(t *testing.T) {
	p := open(t)
	local := rdmaAddr(t, p).As4()
	if os.Geteuid() != 0 {
		t.Skip("needs root to put an address on lo")
	}
	const onLo = "10.99.0.1"
	if out, err := exec.Command("ip", "addr", "add", onLo+"/32", "dev", "lo").CombinedOutput(); err != nil && !strings.Contains(string(out), "exists") {
		t.Skipf("ip addr add %s/32 dev lo: %v %s", onLo, err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "addr", "del", onLo+"/32", "dev", "lo").Run() })
	unused := netip.AddrFrom4([4]byte{local[0], local[1], local[2], 99})
	for _, tt := range []struct {
		name   string
		dst    netip.Addr
		status int           // of RDMA_CM_EVENT_ADDR_ERROR
		errno  syscall.Errno // of the call, instead
	}{
		{"on an interface without a device", netip.MustParseAddr(onLo), -int(syscall.ENODEV), 0},
		{"unused on the device's subnet", unused, -int(syscall.ETIMEDOUT), 0},
		{"no route", netip.MustParseAddr("192.0.2.1"), 0, syscall.ENETUNREACH},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.errno == syscall.ENETUNREACH && hasDefaultRoute() {
				t.Skip("a default route reaches every address")
			}
			ch, err := p.CreateEventChannel()
			if err != nil {
				t.Fatal(err)
			}
			defer ch.Destroy()
			id, err := ch.CreateID(verbs.PSTCP)
			if err != nil {
				t.Fatal(err)
			}
			defer id.Destroy()
			start := time.Now()
			err = id.ResolveAddr(netip.AddrPort{}, netip.AddrPortFrom(tt.dst, 7471), 500*time.Millisecond)
			if tt.errno != 0 {
				if !errors.Is(err, tt.errno) {
					t.Fatalf("rdma_resolve_addr(%s) = %v, want %s", tt.dst, err, verbs.ErrnoName(tt.errno))
				}
				return
			}
			if err != nil {
				t.Fatalf("rdma_resolve_addr(%s): %v", tt.dst, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), evTimeout)
			defer cancel()
			ev, err := ch.GetEvent(ctx)
			if err != nil || ev.Type != verbs.EventAddrError || ev.Status != tt.status {
				t.Fatalf("%s: %v status %d (%v), want RDMA_CM_EVENT_ADDR_ERROR status %d", tt.dst, ev.Type, ev.Status, err, tt.status)
			}
			t.Logf("%s: RDMA_CM_EVENT_ADDR_ERROR status %d after %v", tt.dst, ev.Status, time.Since(start))
		})
	}
}

// hasDefaultRoute: /proc/net/route has a route to 0.0.0.0.
func hasDefaultRoute() bool {
	b, err := os.ReadFile("/proc/net/route")
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 1 && f[1] == "00000000" {
			return true
		}
	}
	return false
}
