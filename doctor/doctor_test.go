package doctor

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// world describes a fake machine; build turns it into files under
// t.TempDir() and a Doctor that reads them.
type world struct {
	openErr     error
	devs        []verbs.DeviceInfo
	devsErr     error
	providers   []string // file names in usr/lib/x86_64-linux-gnu/libibverbs
	ibClass     bool     // sys/class/infiniband exists
	procModules []string // module names in proc/modules
	moduleFiles []string // paths under lib/modules/<release>
	devNodes    []string // names in dev/infiniband
	denied      []string // dev nodes Access refuses
	ifaces      []Iface
	defRoute    string // interface with the default route
	soft, hard  uint64
	capEff      uint64
	hasRdmaTool bool
	lang        text.Lang
}

const release = "6.1.0-test-amd64"

type fakeLister struct {
	devs []verbs.DeviceInfo
	err  error
}

func (f fakeLister) Devices() ([]verbs.DeviceInfo, error) { return f.devs, f.err }

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w world) build(t *testing.T) *Doctor {
	t.Helper()
	root := t.TempDir()
	p := func(s string) string { return filepath.Join(root, s) }
	d := &Doctor{
		Lang:        w.lang,
		SysfsIB:     p("sys/class/infiniband"),
		SysModule:   p("sys/module"),
		ProcModules: p("proc/modules"),
		ProcRoute:   p("proc/net/route"),
		ProcStatus:  p("proc/self/status"),
		ModulesDir:  p("lib/modules"),
		DevIB:       p("dev/infiniband"),
		ProviderDir: []string{p("usr/lib/*/libibverbs"), p("usr/lib64/libibverbs")},
		KernelRelease: func() (string, error) {
			return release, nil
		},
		Getrlimit: func() (uint64, uint64, error) { return w.soft, w.hard, nil },
		Open: func() (Lister, error) {
			if w.openErr != nil {
				return nil, w.openErr
			}
			return fakeLister{w.devs, w.devsErr}, nil
		},
		Interfaces: func() ([]Iface, error) { return w.ifaces, nil },
		HasCommand: func(name string) bool { return name == "rdma" && w.hasRdmaTool },
		Access: func(path string) error {
			for _, n := range w.denied {
				if filepath.Base(path) == n {
					return &os.PathError{Op: "open", Path: path, Err: os.ErrPermission}
				}
			}
			return nil
		},
		Euid: 1000,
	}
	for _, f := range w.providers {
		write(t, p("usr/lib/x86_64-linux-gnu/libibverbs/"+f), "")
	}
	if w.ibClass {
		if err := os.MkdirAll(d.SysfsIB, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, dv := range w.devs {
			write(t, filepath.Join(d.SysfsIB, dv.Name, "node_type"), "1: CA\n")
		}
	}
	var mods strings.Builder
	for _, m := range w.procModules {
		mods.WriteString(m + " 12288 0 - Live 0x0000000000000000\n")
	}
	write(t, d.ProcModules, mods.String())
	for _, f := range w.moduleFiles {
		write(t, filepath.Join(d.ModulesDir, release, f), "")
	}
	if err := os.MkdirAll(d.DevIB, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range w.devNodes {
		write(t, filepath.Join(d.DevIB, n), "")
	}
	route := "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
	for _, i := range w.ifaces {
		if a := i.IPv4(); a.IsValid() {
			route += i.Name + "\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
		}
	}
	if w.defRoute != "" {
		route += w.defRoute + "\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
	}
	write(t, d.ProcRoute, route)
	write(t, d.ProcStatus, "Name:\trdmatour\nCapEff:\t"+strings.TrimPrefix(hex(w.capEff), "0x")+"\n")
	return d
}

func hex(v uint64) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return string(b)
}

func rxe0(state verbs.PortState, ports ...verbs.PortState) verbs.DeviceInfo {
	dv := verbs.DeviceInfo{Name: "rxe0", Transport: "InfiniBand", NodeGUID: "5054:00ff:fe12:3456", Netdevs: []string{"eth0"}}
	for i, s := range append([]verbs.PortState{state}, ports...) {
		dv.Ports = append(dv.Ports, verbs.PortAttr{Num: uint8(i + 1), State: s, ActiveMTU: 1024, MaxMTU: 4096, LinkLayer: "Ethernet",
			GIDs: []verbs.GIDEntry{
				{Index: 0, GID: netip.MustParseAddr("fe80::5054:ff:fe12:3456"), Type: "RoCE v2"},
				{Index: 1, GID: netip.MustParseAddr("::ffff:10.0.2.15"), Type: "RoCE v2"},
			}})
	}
	return dv
}

var (
	lo     = Iface{Name: "lo", Up: true, Loopback: true, Addrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/8")}}
	docker = Iface{Name: "docker0", Up: true, Addrs: []netip.Prefix{netip.MustParsePrefix("172.17.0.1/16")}}
	eth0   = Iface{Name: "eth0", Up: true, Addrs: []netip.Prefix{netip.MustParsePrefix("fe80::1/64"), netip.MustParsePrefix("10.0.2.15/24")}}
)

// ready is a machine on which everything works (Soft-RoCE rxe0 on eth0).
func ready() world {
	return world{
		devs:        []verbs.DeviceInfo{rxe0(verbs.PortActive)},
		providers:   []string{"libmlx5-rdmav34.so", "librxe-rdmav34.so"},
		ibClass:     true,
		procModules: []string{"rdma_rxe", "rdma_ucm", "ib_uverbs", "ib_core"},
		devNodes:    []string{"rdma_cm", "uverbs0"},
		ifaces:      []Iface{lo, docker, eth0},
		defRoute:    "eth0",
		soft:        8 << 20, hard: 8 << 20,
		hasRdmaTool: true,
	}
}

// Check indexes in Run's order.
const (
	iLibs = iota
	iProviders
	iModules
	iDevices
	iSoftRoCE
	iDevNodes
	iMemlock
)

func TestDoctor(t *testing.T) {
	loadErr := errors.New("libibverbs.so.1 not found: install rdma-core / libibverbs1 (libibverbs.so.1: cannot open shared object file: No such file or directory)")
	tests := []struct {
		name   string
		world  func(w *world)
		status map[int]Status // checks whose status is asserted
		want   []string       // lines that must appear, exactly (trimmed)
		absent []string       // text that must not appear
		exit   int
	}{
		{
			name:   "everything ok",
			world:  func(w *world) {},
			status: map[int]Status{iLibs: OK, iProviders: OK, iModules: OK, iDevices: OK, iSoftRoCE: OK, iDevNodes: OK, iMemlock: OK},
			want: []string{
				"[ok]   RDMA devices and ports",
				"port 1: ACTIVE, MTU 1024 (max 4096), Ethernet",
				"GID[1] ::ffff:10.0.2.15 RoCE v2",
				"rdmatour server --bind 10.0.2.15",
				"ready: real RDMA works here",
			},
			absent: []string{"$ ", "[warn]", "[FAIL]", "sudo"},
			exit:   0,
		},
		{
			name: "no libraries",
			world: func(w *world) {
				w.openErr = loadErr
				w.devs = nil
				w.ibClass = false
				w.procModules = nil
				w.devNodes = nil
			},
			status: map[int]Status{iLibs: Fail, iDevices: Fail},
			want: []string{
				"[FAIL] rdma-core libraries (libibverbs.so.1, librdmacm.so.1)",
				loadErr.Error(),
				"$ apt-get install rdma-core libibverbs1 librdmacm1 ibverbs-providers",
				"Fedora/RHEL: dnf install rdma-core libibverbs librdmacm",
				"cannot list devices: libibverbs could not be loaded (see above)",
			},
			exit: 1,
		},
		{
			name: "libraries but no device, rdma_rxe available",
			world: func(w *world) {
				w.devs = nil
				w.procModules = []string{"rdma_ucm", "ib_uverbs", "ib_core"}
				w.moduleFiles = []string{"kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz"}
				w.devNodes = []string{"rdma_cm"}
			},
			status: map[int]Status{iLibs: OK, iProviders: OK, iModules: Fail, iDevices: Fail, iSoftRoCE: Warn, iDevNodes: OK},
			want: []string{
				"rdma_rxe (Soft-RoCE): available in " + "LIB/" + release + ", not loaded",
				"$ modprobe rdma_rxe",
				"$ rdma link add rxe0 type rxe netdev eth0",
				"$ rdmatour server --bind 10.0.2.15",
				"$ rdmatour client 10.0.2.15",
				"no RDMA device: make one on eth0 10.0.2.15 (default route), then use 10.0.2.15 with rdmatour",
				"not ready for real RDMA: 2 problem(s) — rdmatour will use the simulated NIC (--backend sim)",
			},
			absent: []string{"docker0", "apt-get install iproute2"},
			exit:   1,
		},
		{
			name: "no device, no default route, rdma tool missing",
			world: func(w *world) {
				w.devs = nil
				w.defRoute = ""
				w.hasRdmaTool = false
				w.ifaces = []Iface{lo, docker, eth0}
			},
			status: map[int]Status{iModules: OK, iDevices: Fail, iSoftRoCE: Warn},
			want: []string{
				"rdma_rxe (Soft-RoCE): loaded, no device yet",
				"$ apt-get install iproute2",
				"$ rdma link add rxe0 type rxe netdev eth0",
				"no RDMA device: make one on eth0 10.0.2.15, then use 10.0.2.15 with rdmatour",
			},
			absent: []string{"$ modprobe rdma_rxe", "docker0"},
			exit:   1,
		},
		{
			name: "kernel without RDMA",
			world: func(w *world) {
				w.devs = nil
				w.ibClass = false
				w.procModules = []string{"ext4"}
				w.devNodes = nil
			},
			status: map[int]Status{iLibs: OK, iModules: Fail, iDevices: Fail, iSoftRoCE: Warn, iDevNodes: Fail, iMemlock: OK},
			want: []string{
				"this kernel (" + release + ") has no RDMA support: no SYS, and no RDMA modules (ib_core, rdma_rxe, siw) loaded or under LIB/" + release,
				"rdmatour still works here on its simulated NIC (the same tour, the same calls)",
				"$ rdmatour demo --backend sim",
				"rdma link add rxe0 type rxe netdev eth0",
				"not ready for real RDMA: 3 problem(s) — rdmatour will use the simulated NIC (--backend sim)",
			},
			absent: []string{"$ modprobe", "$ rdma link add"},
			exit:   1,
		},
		{
			name: "siw0, an iWARP device",
			world: func(w *world) {
				// siw0 as measured in the guest: transport iWARP, GID 0 the MAC.
				w.devs = []verbs.DeviceInfo{{Name: "siw0", Transport: verbs.TransportIWARP, Netdevs: []string{"eth0"}, AtomicCap: verbs.AtomicNone,
					Ports: []verbs.PortAttr{{Num: 1, State: verbs.PortActive, ActiveMTU: 1024, MaxMTU: 1024, LinkLayer: "Ethernet",
						GIDs: []verbs.GIDEntry{{Index: 0, GID: netip.MustParseAddr("5254:12:3456::"), Type: "RoCE v1"}}}}}}
			},
			status: map[int]Status{iDevices: OK},
			want: []string{
				"siw0 (iWARP, netdev eth0)",
				"siw0 is iWARP (RDMA over TCP): the write and read tours run on it; the atomic and ud tours and --notify imm do not (no atomics, no UD QP, no immediate data)",
			},
			exit: 0,
		},
		{
			name: "no device, siw available and no rdma_rxe",
			world: func(w *world) {
				w.devs = nil
				w.procModules = []string{"rdma_ucm", "ib_uverbs", "ib_core"}
				w.moduleFiles = []string{"extra/siw.ko"}
			},
			status: map[int]Status{iDevices: Fail, iSoftRoCE: Warn},
			want: []string{
				"$ modprobe siw",
				"$ rdma link add siw0 type siw netdev eth0",
				"siw0 is iWARP (RDMA over TCP): the write and read tours run on it; the atomic and ud tours and --notify imm do not (no atomics, no UD QP, no immediate data)",
				"$ rdmatour client 10.0.2.15",
			},
			absent: []string{"$ rdma link add rxe0", "$ modprobe rdma_rxe"},
			exit:   1,
		},
		{
			name:   "only port DOWN",
			world:  func(w *world) { w.devs = []verbs.DeviceInfo{rxe0(verbs.PortDown)} },
			status: map[int]Status{iDevices: Fail},
			want: []string{
				"port 1: DOWN, MTU 1024 (max 4096), Ethernet",
				"rxe0 port 1 is not ACTIVE: its network interface is down",
				"$ ip link set eth0 up",
				"no port is ACTIVE: nothing can connect yet",
			},
			exit: 1,
		},
		{
			name:   "one of two ports DOWN",
			world:  func(w *world) { w.devs = []verbs.DeviceInfo{rxe0(verbs.PortActive, verbs.PortDown)} },
			status: map[int]Status{iDevices: Warn},
			want: []string{
				"[warn] RDMA devices and ports",
				"port 2: DOWN, MTU 1024 (max 4096), Ethernet",
				"rxe0 port 2 is not ACTIVE: its network interface is down",
				"$ ip link set eth0 up",
				"ready: real RDMA works here",
			},
			exit: 0,
		},
		{
			name:   "memlock 0",
			world:  func(w *world) { w.soft, w.hard = 0, 0 },
			status: map[int]Status{iMemlock: Fail},
			want: []string{
				"[FAIL] locked-memory limit (ulimit -l)",
				"RLIMIT_MEMLOCK: soft 0 bytes, hard 0 bytes",
				"the tour pins 4 pages (16 KiB) of MRs plus CQ/QP rings: need at least 64 KiB; unlimited recommended",
				"$ ulimit -l unlimited",
				"$ echo '* soft memlock unlimited' | tee -a /etc/security/limits.conf",
				"$ echo '* hard memlock unlimited' | tee -a /etc/security/limits.conf",
				"not ready for real RDMA: 1 problem(s) — rdmatour will use the simulated NIC (--backend sim)",
				"(not root: run the apt-get, modprobe, rdma, ip, chmod and tee commands with sudo)",
			},
			exit: 1,
		},
		{
			name:   "memlock 32 KiB",
			world:  func(w *world) { w.soft, w.hard = 32<<10, 32<<10 },
			status: map[int]Status{iMemlock: Warn},
			want: []string{"RLIMIT_MEMLOCK: soft 32 KiB, hard 32 KiB", "$ ulimit -l unlimited", "ready: real RDMA works here",
				"`ulimit -l unlimited` works in a root shell; otherwise add the limits.conf lines and log in again"},
		},
		{
			name:   "memlock 0, hard limit 1 MiB",
			world:  func(w *world) { w.soft, w.hard = 0, 1<<20 },
			status: map[int]Status{iMemlock: Fail},
			want:   []string{"$ ulimit -l 1024", "`ulimit -l 1024` (the hard limit) works in this shell without root; the limits.conf lines allow unlimited (log in again)"},
			exit:   1,
		},
		{
			name:   "memlock 0, hard limit unlimited",
			world:  func(w *world) { w.soft, w.hard = 0, Unlimited },
			status: map[int]Status{iMemlock: Fail},
			want:   []string{"$ ulimit -l unlimited", "the hard limit is unlimited: `ulimit -l unlimited` works in this shell without root; the limits.conf lines make it permanent (log in again)"},
			exit:   1,
		},
		{
			name:   "memlock unlimited",
			world:  func(w *world) { w.soft, w.hard = Unlimited, Unlimited },
			status: map[int]Status{iMemlock: OK},
			want:   []string{"[ok]   locked-memory limit (ulimit -l)", "RLIMIT_MEMLOCK: soft unlimited, hard unlimited"},
			absent: []string{"$ ulimit"},
			exit:   0,
		},
		{
			name:   "memlock 0 but CAP_IPC_LOCK",
			world:  func(w *world) { w.soft, w.hard = 0, 0; w.capEff = 1 << capIPCLock },
			status: map[int]Status{iMemlock: OK},
			want:   []string{"CAP_IPC_LOCK (root): exempt from the limit (RLIMIT_MEMLOCK 0 bytes)"},
			absent: []string{"$ ulimit"},
			exit:   0,
		},
		{
			name:   "no rxe provider",
			world:  func(w *world) { w.devs = nil; w.providers = []string{"libmlx5-rdmav34.so"} },
			status: map[int]Status{iProviders: Warn},
			want:   []string{"found mlx5, but not rxe: a Soft-RoCE device would not show up", "$ apt-get install ibverbs-providers"},
			exit:   1,
		},
		{
			name:   "no provider at all",
			world:  func(w *world) { w.providers = nil },
			status: map[int]Status{iProviders: Fail},
			want:   []string{"$ apt-get install ibverbs-providers", "Fedora/RHEL: dnf install libibverbs"},
			exit:   1,
		},
		{
			name: "rdma_ucm not loaded",
			world: func(w *world) {
				w.procModules = []string{"rdma_rxe", "ib_uverbs", "ib_core"}
				w.devNodes = []string{"uverbs0"}
			},
			status: map[int]Status{iModules: Fail, iDevNodes: Fail},
			want:   []string{"rdma_ucm: not loaded", "$ modprobe rdma_ucm", "DEV/rdma_cm is missing (rdma_ucm not loaded)"},
			exit:   1,
		},
		{
			name:   "device files not accessible",
			world:  func(w *world) { w.denied = []string{"rdma_cm", "uverbs0"} },
			status: map[int]Status{iDevNodes: Fail},
			want: []string{
				"DEV/rdma_cm: permission denied",
				"$ chmod 0666 DEV/rdma_cm DEV/uverbs0",
				`$ printf 'KERNEL=="rdma_cm", MODE="0666"\nKERNEL=="uverbs*", MODE="0666"\n' | tee /etc/udev/rules.d/90-rdmatour.rules`,
			},
			exit: 1,
		},
		{
			name:   "netdev without an IPv4 address",
			world:  func(w *world) { w.ifaces = []Iface{lo, {Name: "eth0", Up: true}} },
			status: map[int]Status{iSoftRoCE: Warn},
			want:   []string{"eth0 has no IPv4 address: rdma_cm cannot find the device", "$ ip addr add <address>/24 dev eth0"},
			exit:   0,
		},
		{
			name:   "listing fails",
			world:  func(w *world) { w.devsErr = errors.New("ibv_open_device(rxe0): Permission denied") },
			status: map[int]Status{iDevices: Fail},
			want:   []string{"listing devices: ibv_open_device(rxe0): Permission denied"},
			exit:   1,
		},
		{
			name:  "Chinese",
			world: func(w *world) { w.lang = "zh"; w.devs = nil },
			want: []string{
				"[FAIL] RDMA 设备与端口",
				"$ rdma link add rxe0 type rxe netdev eth0",
				"（尚不能使用真实 RDMA：1 个问题；rdmatour 会改用模拟网卡 --backend sim）",
			},
			exit: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := ready()
			tc.world(&w)
			d := w.build(t)
			r := d.Run()
			var b strings.Builder
			r.Write(&b)
			// Paths in expectations are relative to the fake root.
			out := strings.NewReplacer(d.SysfsIB, "SYS", d.ModulesDir, "LIB", d.DevIB, "DEV").Replace(b.String())
			lines := map[string]bool{}
			for _, l := range strings.Split(out, "\n") {
				lines[strings.TrimSpace(l)] = true
			}
			for i, want := range tc.status {
				if got := r.Checks[i].Status; got != want {
					t.Errorf("check %d (%s): status %v, want %v", i, r.Checks[i].Name, got, want)
				}
			}
			for _, l := range tc.want {
				if !lines[strings.TrimSpace(l)] {
					t.Errorf("missing line %q", l)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(out, s) {
					t.Errorf("unexpected %q", s)
				}
			}
			if got := r.ExitCode(); got != tc.exit {
				t.Errorf("exit %d, want %d", got, tc.exit)
			}
			if t.Failed() {
				t.Logf("output:\n%s", out)
			}
		})
	}
}

func TestDoctorEveryFailHasAFix(t *testing.T) {
	w := ready()
	w.openErr = errors.New("librdmacm.so.1 not found")
	w.providers = nil
	w.soft = 0
	w.devNodes = nil
	r := w.build(t).Run()
	for _, c := range r.Checks {
		if c.Status == Fail && len(c.Fix) == 0 && c.Name != "RDMA devices and ports" {
			t.Errorf("%s fails without a fix", c.Name)
		}
	}
}

func TestDoctorMemlockFromLimits(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		line       string
		soft, hard uint64
		ok         bool
	}{
		{"Max locked memory         8388608              8388608              bytes", 8 << 20, 8 << 20, true},
		{"Max locked memory         unlimited            unlimited            bytes", Unlimited, Unlimited, true},
		{"Max locked memory         0                    65536                bytes", 0, 65536, true},
		{"Max open files            1024                 524288               files", 0, 0, false},
	} {
		p := filepath.Join(dir, "limits")
		write(t, p, "Limit                     Soft Limit           Hard Limit           Units\n"+tc.line+"\n")
		soft, hard, err := memlockFromLimits(p)
		if (err == nil) != tc.ok || soft != tc.soft || hard != tc.hard {
			t.Errorf("%q: %d %d %v", tc.line, soft, hard, err)
		}
	}
}

func TestDoctorPickNIC(t *testing.T) {
	wlan := Iface{Name: "wlp2s0", Up: true, Addrs: []netip.Prefix{netip.MustParsePrefix("192.168.1.7/24")}}
	down := Iface{Name: "eth1", Addrs: []netip.Prefix{netip.MustParsePrefix("10.9.9.9/24")}}
	veth := Iface{Name: "veth12ab", Up: true, Addrs: []netip.Prefix{netip.MustParsePrefix("10.200.0.1/24")}}
	for _, tc := range []struct {
		ifaces []Iface
		def    string
		want   string
	}{
		{[]Iface{lo, docker, eth0}, "eth0", "eth0"},
		{[]Iface{lo, eth0, wlan}, "wlp2s0", "wlp2s0"},
		{[]Iface{lo, veth, down, eth0}, "", "eth0"},
		{[]Iface{lo, docker, veth, down}, "docker0", ""},
	} {
		def := map[string]bool{tc.def: tc.def != ""}
		got, ok := pickNIC(tc.ifaces, def)
		if ok != (tc.want != "") || got.Name != tc.want {
			t.Errorf("pickNIC(%v, %q) = %q, want %q", tc.ifaces, tc.def, got.Name, tc.want)
		}
	}
}

func TestDevicesWrite(t *testing.T) {
	var b strings.Builder
	WriteDevices(&b, []verbs.DeviceInfo{rxe0(verbs.PortActive)})
	for _, want := range []string{
		"rxe0",
		"    transport:   InfiniBand",
		"    node GUID:   5054:00ff:fe12:3456",
		"    netdevs:     eth0",
		"    port 1:",
		"        state:       ACTIVE (4)",
		"        active MTU:  1024 (max 4096)",
		"        link layer:  Ethernet",
		"        GID[  1]:    ::ffff:10.0.2.15                         RoCE v2",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
}
