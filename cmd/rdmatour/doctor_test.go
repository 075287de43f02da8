package main

import (
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/doctor"
	"github.com/rdmatour/rdmatour/verbs"
)

// hostHasRDMA says whether the kernel running the test has an RDMA device
// (false on the development host, true in the QEMU guest with rxe0).
func hostHasRDMA() bool {
	ents, err := os.ReadDir("/sys/class/infiniband")
	return err == nil && len(ents) > 0
}

// TestDevicesOnThisHost runs `rdmatour devices` against the real
// libraries: without a device it must fail with a message that points to
// doctor; with one it must list it.
func TestDevicesOnThisHost(t *testing.T) {
	var out, errb strings.Builder
	code := runDevices(&out, &errb)
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	if hostHasRDMA() {
		if code != 0 || !strings.Contains(out.String(), "    port 1:\n") {
			t.Fatalf("exit %d with a device present", code)
		}
		return
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1 without RDMA devices", code)
	}
	msg := errb.String()
	if msg != "no RDMA devices found (run `rdmatour doctor`)\n" && !strings.Contains(msg, "not found: install") &&
		!strings.Contains(msg, "need Linux and cgo") {
		t.Fatalf("unclear message %q", msg)
	}
}

type fakeLister struct {
	devs []verbs.DeviceInfo
	err  error
}

func (f fakeLister) Devices() ([]verbs.DeviceInfo, error) { return f.devs, f.err }

func TestDevicesCases(t *testing.T) {
	rxe := verbs.DeviceInfo{Name: "rxe0", Transport: "InfiniBand", NodeGUID: "5054:00ff:fe12:3456", Netdevs: []string{"eth0"},
		Ports: []verbs.PortAttr{{Num: 1, State: verbs.PortActive, ActiveMTU: 1024, MaxMTU: 4096, LinkLayer: "Ethernet",
			GIDs: []verbs.GIDEntry{{Index: 1, GID: netip.MustParseAddr("::ffff:10.0.2.15"), Type: "RoCE v2"}}}}}
	for _, tc := range []struct {
		name      string
		open      func() (doctor.Lister, error)
		code      int
		out, errs string
	}{
		{"load error", func() (doctor.Lister, error) {
			return nil, errors.New("librdmacm.so.1 not found: install rdma-core / librdmacm1 (cannot open shared object file)")
		}, 1, "", "rdmatour devices: librdmacm.so.1 not found: install rdma-core / librdmacm1 (cannot open shared object file)\n"},
		{"none", func() (doctor.Lister, error) { return fakeLister{}, nil }, 1, "", "no RDMA devices found (run `rdmatour doctor`)\n"},
		{"list error", func() (doctor.Lister, error) { return fakeLister{err: errors.New("ibv_get_device_list: EPERM")}, nil },
			1, "", "rdmatour devices: listing RDMA devices: ibv_get_device_list: EPERM\n"},
		{"rxe0", func() (doctor.Lister, error) { return fakeLister{devs: []verbs.DeviceInfo{rxe}}, nil }, 0, "::ffff:10.0.2.15", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			code := listDevices(tc.open, &out, &errb)
			if code != tc.code || !strings.Contains(out.String(), tc.out) || errb.String() != tc.errs {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
			}
		})
	}
}

// TestDoctorOnThisHost: the exit status and the verdict line agree.
func TestDoctorOnThisHost(t *testing.T) {
	var out, errb strings.Builder
	code := runDoctor(console{stdout: &out, stderr: &errb, getenv: os.Getenv})
	t.Logf("exit %d\n%s", code, out.String())
	ready := strings.Contains(out.String(), "\nready: real RDMA works here\n")
	if ready != (code == 0) || (!ready && !strings.Contains(out.String(), "not ready for real RDMA: ")) {
		t.Fatalf("exit %d does not match the verdict", code)
	}
	if hostHasRDMA() != ready {
		t.Logf("note: RDMA device present=%v, ready=%v", hostHasRDMA(), ready)
	}
}
