package guide

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// TestRealToolsSaysWhereTheyRun: on a real device the commands carry
// the device and the server's real address (the CM id's, when --bind
// left it to the system); on the simulated NIC they carry no device and
// say they need one.
func TestRealToolsSaysWhereTheyRun(t *testing.T) {
	real := steps.Snapshot{Role: steps.Server, Device: &steps.DeviceState{Info: verbs.DeviceInfo{Name: "rxe0"}, GIDIndex: 1},
		CMID: &steps.CMIDState{Local: "10.0.2.15:7471"}}
	srv := steps.Config{Role: steps.Server, Bind: netip.MustParseAddrPort("0.0.0.0:7471")}
	got := RealTools(srv, real)
	for _, want := range []string{"The same with the real tools: server: ib_write_bw -R -d rxe0 -s ", "-p 7471 10.0.2.15 (perftest: ", "rping -s -a 10.0.2.15 -p 7471"} {
		if !strings.Contains(got.EN, want) {
			t.Errorf("lacks %q: %s", want, got.EN)
		}
	}
	if !strings.Contains(got.ZH, "用真实的工具做同样的事：server：ib_write_bw -R -d rxe0") {
		t.Errorf("zh: %s", got.ZH)
	}
	sim := steps.Snapshot{Role: steps.Client, Simulated: true, Device: &steps.DeviceState{Info: verbs.DeviceInfo{Name: "sim0"}}}
	cli := steps.Config{Role: steps.Client, Server: netip.MustParseAddrPort("127.0.0.1:7471"), Tour: steps.TourRead}
	got = RealTools(cli, sim)
	if !strings.Contains(got.EN, "on hosts with an RDMA device") || strings.Contains(got.EN, "sim0") || !strings.Contains(got.EN, "ib_read_bw -R -s ") {
		t.Errorf("sim: %s", got.EN)
	}
	gone := steps.Snapshot{Role: steps.Client, UsedDevice: &steps.DeviceState{Info: verbs.DeviceInfo{Name: "rxe0"}, GIDIndex: 1}}
	manual := steps.Config{Role: steps.Client, Server: netip.MustParseAddrPort("10.0.2.15:7471"), Track: steps.TrackManual}
	if got = RealTools(manual, gone); !strings.Contains(got.EN, "ibv_rc_pingpong -d rxe0 -g 1 -s ") {
		t.Errorf("after teardown: %s", got.EN)
	}
}
