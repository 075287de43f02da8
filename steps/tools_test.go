package steps_test

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// TestToolsOfEachTour: every tour names the tools that do what it does,
// with the run's device, GID, address, port and size, and nothing the
// run did not have (no -d on the simulated NIC, a placeholder where the
// server's address is not known).
func TestToolsOfEachTour(t *testing.T) {
	rxe := steps.ToolArgs{Server: netip.MustParseAddrPort("10.0.2.15:7471"), Device: "rxe0", GIDIndex: 1, Size: 42}
	manual := rxe
	manual.Track = steps.TrackManual
	sim := steps.ToolArgs{Server: netip.MustParseAddrPort("0.0.0.0:7000"), GIDIndex: -1, Size: 8}
	for _, c := range []struct {
		name string
		kind steps.TourKind
		a    steps.ToolArgs
		want [][2]string
	}{
		{"write on rxe", steps.TourWrite, rxe, [][2]string{
			{"ib_write_bw -R -d rxe0 -s 42 -n 5 -p 7471", "ib_write_bw -R -d rxe0 -s 42 -n 5 -p 7471 10.0.2.15"},
			{"rping -s -a 10.0.2.15 -p 7471 -C 1 -v", "rping -c -a 10.0.2.15 -p 7471 -C 1 -v"}}},
		{"write, manual track", steps.TourWrite, manual, [][2]string{
			{"ibv_rc_pingpong -d rxe0 -g 1 -s 42 -n 1 -p 7471", "ibv_rc_pingpong -d rxe0 -g 1 -s 42 -n 1 -p 7471 10.0.2.15"},
			{"rping -s -a 10.0.2.15 -p 7471 -C 1 -v -q", "rping -c -a 10.0.2.15 -p 7471 -C 1 -v -q"}}},
		{"write on the sim, any address", steps.TourWrite, sim, [][2]string{
			{"ib_write_bw -R -s 8 -n 5 -p 7000", "ib_write_bw -R -s 8 -n 5 -p 7000 SERVER_ADDR"},
			{"rping -s -p 7000 -C 1 -v", "rping -c -a SERVER_ADDR -p 7000 -C 1 -v"}}},
		{"read", steps.TourRead, rxe, [][2]string{
			{"ib_read_bw -R -d rxe0 -s 42 -n 5 -p 7471", "ib_read_bw -R -d rxe0 -s 42 -n 5 -p 7471 10.0.2.15"},
			{"rping -s -a 10.0.2.15 -p 7471 -C 1 -v", "rping -c -a 10.0.2.15 -p 7471 -C 1 -v"}}},
		{"atomic", steps.TourAtomic, rxe, [][2]string{
			{"ib_atomic_bw -R -d rxe0 -A FETCH_AND_ADD -n 5 -p 7471", "ib_atomic_bw -R -d rxe0 -A FETCH_AND_ADD -n 5 -p 7471 10.0.2.15"},
			{"ib_atomic_bw -R -d rxe0 -A CMP_AND_SWAP -n 5 -p 7471", "ib_atomic_bw -R -d rxe0 -A CMP_AND_SWAP -n 5 -p 7471 10.0.2.15"}}},
		{"ud", steps.TourUD, rxe, [][2]string{
			{"ib_send_bw -R -d rxe0 -c UD -s 42 -n 5 -p 7471", "ib_send_bw -R -d rxe0 -c UD -s 42 -n 5 -p 7471 10.0.2.15"},
			{"ibv_ud_pingpong -d rxe0 -g 1 -s 42 -n 1 -p 7471", "ibv_ud_pingpong -d rxe0 -g 1 -s 42 -n 1 -p 7471 10.0.2.15"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got [][2]string
			for _, cmd := range steps.Tools(c.kind, c.a) {
				got = append(got, [2]string{cmd.Server, cmd.Client})
				if cmd.Package == "" || cmd.What.EN == "" || cmd.What.ZH == "" {
					t.Errorf("%s: no package or no words: %+v", cmd.Server, cmd)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestToolArgsOfARun: the size is what the WRITE carries (the message
// and its NUL, or --message-size), the address the one each side knows.
func TestToolArgsOfARun(t *testing.T) {
	srv := steps.Config{Role: steps.Server, Bind: netip.MustParseAddrPort("10.0.2.15:7471")}
	cli := steps.Config{Role: steps.Client, Server: netip.MustParseAddrPort("10.0.2.15:7471"), Message: "hi", MessageSize: 2000}
	if a := steps.ToolArgsOf(srv, "rxe0", 1); a.Server != srv.Bind || a.Size != len(steps.DefaultMessage)+1 || a.Device != "rxe0" || a.GIDIndex != 1 {
		t.Errorf("server: %+v", a)
	}
	if a := steps.ToolArgsOf(cli, "", -1); a.Server != cli.Server || a.Size != 2000 {
		t.Errorf("client: %+v", a)
	}
}

// TestUsedDeviceOutlivesTeardown: the tour's last snapshot, after the CM
// id and the device are gone, still names the device and GID the
// connection used, which the real tools' -d and -g need.
func TestUsedDeviceOutlivesTeardown(t *testing.T) {
	p := newPair(t, steps.NotifySend, "tools")
	p.runTurns(t, -1)
	for _, s := range []*steps.Session{p.srv, p.cli} {
		snap := s.Snapshot()
		// (127.0.0.1 is in no GID of sim0: the index stays -1 here.)
		if u := snap.UsedDevice; u == nil || u.Info.Name == "" {
			t.Errorf("%s: used device %+v after teardown (device now %+v)", s.Config().Role, u, snap.Device)
		}
	}
}
