//go:build linux && cgo

package steps_test

import (
	"fmt"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// The edit table on rxe: the same single edits as
// TestEditTableOnSimulatedNIC, server and client in one process on one
// device, each requiring the same outcome class. Run in the QEMU guest
// with RDMATOUR_RDMA_ADDR=10.0.2.15.
func TestEditTableOnRealVerbs(t *testing.T) {
	p, addr := steps.RealVerbs(t)
	for i, tc := range editTable() {
		t.Run(tc.edit, func(t *testing.T) {
			bind := netip.AddrPortFrom(addr, uint16(7700+i)).String()
			start := time.Now()
			got := runEditCase(t, tc, p, p, bind)
			if tc.rxe != "" {
				tc.want = tc.rxe
			}
			// Each result at once on stderr: a guest run cut short by its
			// timeout still shows how far it got and what rxe said.
			fmt.Fprintf(os.Stderr, "edit %2d %-50s %-55s %s %v\n", i, tc.edit, got, map[bool]string{true: "same", false: "DIFFERS"}[got == tc.want], time.Since(start).Round(time.Millisecond))
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if live := p.Live(); live.Total() != 0 {
				t.Errorf("leaked %+v", live)
			}
		})
	}
	fmt.Fprintf(os.Stderr, "edit table: %d edits on rxe\n", len(editTable()))
}
