//go:build linux && cgo

package steps

import (
	"net/netip"
	"os"
	"testing"

	"github.com/rdmatour/rdmatour/verbs/rdmacore"
)

// realVerbs opens rdma-core and gives the RDMA address the guest set up,
// or skips the test: the steps package's real-verbs tests run in the
// QEMU guest (scripts/qemu/run-in-guest.sh, RDMATOUR_RDMA_ADDR=10.0.2.15).
func realVerbs(t *testing.T) (*rdmacore.Provider, netip.Addr) {
	t.Helper()
	addr, err := netip.ParseAddr(os.Getenv("RDMATOUR_RDMA_ADDR"))
	if err != nil {
		t.Skip("RDMATOUR_RDMA_ADDR not set (run in scripts/qemu/run-in-guest.sh)")
	}
	p, err := rdmacore.Open()
	if err != nil {
		t.Skip(err)
	}
	return p, addr
}

// RealVerbs is realVerbs for the package's external tests.
var RealVerbs = realVerbs
