package doctor

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// state is what several checks look at, gathered once.
type state struct {
	release    string
	releaseErr error

	openErr error              // loading the libraries
	devs    []verbs.DeviceInfo // what libibverbs lists
	devsErr error              // listing them
	sysDevs []string           // /sys/class/infiniband entries
	ibClass bool               // /sys/class/infiniband exists: ib_core is in
	ifaces  []Iface
	ifErr   error
	defRt   map[string]bool // interfaces with an IPv4 default route
}

func (d *Doctor) gather() state {
	var st state
	st.release, st.releaseErr = d.KernelRelease()
	if ents, err := os.ReadDir(d.SysfsIB); err == nil {
		st.ibClass = true
		for _, e := range ents {
			st.sysDevs = append(st.sysDevs, e.Name())
		}
	}
	lister, err := d.Open()
	if err != nil {
		st.openErr = err
	} else {
		st.devs, st.devsErr = lister.Devices()
	}
	st.ifaces, st.ifErr = d.Interfaces()
	st.defRt = defaultRoutes(d.ProcRoute)
	return st
}

// defaultRoutes reads the interfaces that carry an IPv4 default route
// (destination and mask 0) from /proc/net/route.
func defaultRoutes(path string) map[string]bool {
	out := map[string]bool{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 8 && f[1] == "00000000" && f[7] == "00000000" {
			out[f[0]] = true
		}
	}
	return out
}

// --- libraries -------------------------------------------------------------

func (d *Doctor) checkLibraries(st state) Check {
	c := Check{Name: text.Text{EN: "rdma-core libraries (libibverbs.so.1, librdmacm.so.1)", ZH: "rdma-core 用户态库（libibverbs.so.1、librdmacm.so.1）"}.In(d.Lang)}
	if st.openErr == nil {
		c.Found = []string{text.Text{EN: "both load", ZH: "均可加载"}.In(d.Lang)}
		return c
	}
	c.Status = Fail
	c.Found = []string{st.openErr.Error()}
	if isUnavailable(st.openErr) {
		// A build without cgo, or not Linux: no package install helps.
		c.Found = append(c.Found, text.Text{EN: "this rdmatour binary has no real verbs; the simulated NIC runs the same tour", ZH: "这个 rdmatour 程序不含真实 verbs 支持；模拟网卡可以运行同样的教程"}.In(d.Lang))
		c.Fix = []string{"rdmatour demo --backend sim"}
		return c
	}
	c.Found = append(c.Found, text.Text{EN: "Fedora/RHEL: dnf install rdma-core libibverbs librdmacm", ZH: "Fedora/RHEL：dnf install rdma-core libibverbs librdmacm"}.In(d.Lang))
	c.Fix = []string{"apt-get install rdma-core libibverbs1 librdmacm1 ibverbs-providers"}
	return c
}

// isUnavailable recognises rdmacore.ErrUnavailable by its text, so this
// package does not import the cgo backend.
func isUnavailable(err error) bool {
	return strings.Contains(err.Error(), "need Linux and cgo")
}

// --- provider libraries ----------------------------------------------------

func (d *Doctor) checkProviders(st state) Check {
	c := Check{Name: text.Text{EN: "verbs provider libraries", ZH: "verbs 驱动库（provider）"}.In(d.Lang)}
	var names, dirs []string
	seen := map[string]bool{}
	for _, g := range d.ProviderDir {
		matches, _ := filepath.Glob(filepath.Join(g, "lib*-rdmav*.so"))
		for _, m := range matches {
			dir := filepath.Dir(m)
			if !seen[dir] {
				seen[dir] = true
				dirs = append(dirs, dir)
			}
			base := strings.TrimPrefix(filepath.Base(m), "lib")
			name, _, _ := strings.Cut(base, "-rdmav")
			if !seen["p:"+name] {
				seen["p:"+name] = true
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	has := func(n string) bool { return seen["p:"+n] }
	fix := []string{"apt-get install ibverbs-providers"}
	fedora := text.Text{EN: "Fedora/RHEL: dnf install libibverbs", ZH: "Fedora/RHEL：dnf install libibverbs"}.In(d.Lang)
	switch {
	case len(names) == 0:
		c.Status = Fail
		c.Found = []string{
			text.Text{EN: "no lib*-rdmav*.so in " + strings.Join(d.ProviderDir, ", "), ZH: "在 " + strings.Join(d.ProviderDir, "、") + " 中没有 lib*-rdmav*.so"}.In(d.Lang),
			text.Text{EN: "without one, libibverbs lists no device even when the kernel has one", ZH: "没有它，即使内核里有设备，libibverbs 也列不出来"}.In(d.Lang),
			fedora,
		}
		c.Fix = fix
	case has("rxe"):
		c.Found = []string{text.Text{EN: fmt.Sprintf("%d in %s, including rxe (Soft-RoCE)", len(names), strings.Join(dirs, ", ")), ZH: fmt.Sprintf("%s 中有 %d 个，包括 rxe（Soft-RoCE）", strings.Join(dirs, "、"), len(names))}.In(d.Lang)}
	case len(st.devs) > 0:
		c.Found = []string{text.Text{EN: "found: ", ZH: "已找到："}.In(d.Lang) + strings.Join(names, ", ")}
	default:
		c.Status = Warn
		c.Found = []string{
			text.Text{EN: "found " + strings.Join(names, ", ") + ", but not rxe: a Soft-RoCE device would not show up", ZH: "找到 " + strings.Join(names, "、") + "，但没有 rxe：Soft-RoCE 设备将无法被 libibverbs 看到"}.In(d.Lang),
			fedora,
		}
		c.Fix = fix
	}
	return c
}

// --- kernel modules --------------------------------------------------------

// loaded says whether a module is in the running kernel: listed in
// /proc/modules, or present in /sys/module (which also covers built-ins
// that have parameters), or named in modules.builtin.
func (d *Doctor) loaded(st state, name string) bool {
	if b, err := os.ReadFile(d.ProcModules); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, name+" ") {
				return true
			}
		}
	}
	if _, err := os.Stat(filepath.Join(d.SysModule, name)); err == nil {
		return true
	}
	if st.release != "" {
		if b, err := os.ReadFile(filepath.Join(d.ModulesDir, st.release, "modules.builtin")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if strings.HasSuffix(line, "/"+name+".ko") {
					return true
				}
			}
		}
	}
	return false
}

// available says whether a module file for name exists under
// /lib/modules/$(uname -r) (any compression).
func (d *Doctor) available(st state, name string) bool {
	if st.release == "" {
		return false
	}
	found := false
	root := filepath.Join(d.ModulesDir, st.release)
	_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipDir
		}
		if !e.IsDir() {
			base := e.Name()
			for _, ext := range []string{".ko", ".ko.xz", ".ko.zst", ".ko.gz"} {
				if base == name+ext {
					found = true
					return filepath.SkipAll
				}
			}
		}
		return nil
	})
	return found
}

func (d *Doctor) modulesPath(st state) string {
	if st.release == "" {
		return filepath.Join(d.ModulesDir, "$(uname -r)")
	}
	return filepath.Join(d.ModulesDir, st.release)
}

// noRDMAKernel says whether the running kernel has no RDMA at all: no
// infiniband class, no RDMA module loaded, and no module file to load.
func (d *Doctor) noRDMAKernel(st state) bool {
	if st.ibClass {
		return false
	}
	for _, m := range []string{"ib_core", "rdma_ucm", "ib_uverbs", "rdma_rxe", "siw"} {
		if d.loaded(st, m) || d.available(st, m) {
			return false
		}
	}
	return true
}

func (d *Doctor) checkModules(st state) Check {
	c := Check{Name: text.Text{EN: "kernel modules (rdma_ucm, ib_uverbs, a device driver)", ZH: "内核模块（rdma_ucm、ib_uverbs、设备驱动）"}.In(d.Lang)}
	rel := st.release
	if rel == "" {
		rel = "?"
	}
	if d.noRDMAKernel(st) {
		c.Status = Fail
		c.Found = []string{
			text.Text{EN: fmt.Sprintf("this kernel (%s) has no RDMA support: no %s, and no RDMA modules (ib_core, rdma_rxe, siw) loaded or under %s", rel, d.SysfsIB, d.modulesPath(st)), ZH: fmt.Sprintf("这个内核（%s）不支持 RDMA：没有 %s，也没有已加载或位于 %s 下的 RDMA 模块（ib_core、rdma_rxe、siw）", rel, d.SysfsIB, d.modulesPath(st))}.In(d.Lang),
			text.Text{EN: "rdmatour still works here on its simulated NIC (the same tour, the same calls)", ZH: "rdmatour 在这里仍然可用：使用模拟网卡（同样的教程、同样的调用）"}.In(d.Lang),
			text.Text{EN: "for real RDMA, boot a kernel with rdma_rxe (the stock Debian, Ubuntu and Fedora kernels have it)", ZH: "要用真实 RDMA，请启动带 rdma_rxe 的内核（Debian、Ubuntu、Fedora 的默认内核都有）"}.In(d.Lang),
		}
		c.Fix = []string{"rdmatour demo --backend sim"}
		return c
	}
	var missing []string
	for _, m := range []string{"rdma_ucm", "ib_uverbs"} {
		if d.loaded(st, m) {
			c.Found = append(c.Found, text.Text{EN: m + ": loaded", ZH: m + "：已加载"}.In(d.Lang))
		} else {
			c.Found = append(c.Found, text.Text{EN: m + ": not loaded", ZH: m + "：未加载"}.In(d.Lang))
			missing = append(missing, m)
		}
	}
	for _, m := range missing {
		c.Fix = append(c.Fix, "modprobe "+m)
	}
	if len(missing) > 0 {
		c.Status = Fail
	}
	if len(st.sysDevs) > 0 || len(st.devs) > 0 {
		names := st.sysDevs
		if len(names) == 0 {
			for _, dv := range st.devs {
				names = append(names, dv.Name)
			}
		}
		c.Found = append(c.Found, text.Text{EN: "device driver: bound (" + strings.Join(names, ", ") + ")", ZH: "设备驱动：已就绪（" + strings.Join(names, "、") + "）"}.In(d.Lang))
		return c
	}
	d.softDriver(st, &c)
	return c
}

// softDriver says, for a machine with no RDMA device, whether a software
// driver (Soft-RoCE or Soft-iWARP) is loaded or could be.
func (d *Doctor) softDriver(st state, c *Check) {
	rxeLoaded, siwLoaded := d.loaded(st, "rdma_rxe"), d.loaded(st, "siw")
	switch {
	case rxeLoaded:
		c.Found = append(c.Found, text.Text{EN: "rdma_rxe (Soft-RoCE): loaded, no device yet", ZH: "rdma_rxe（Soft-RoCE）：已加载，但还没有设备"}.In(d.Lang))
	case siwLoaded:
		c.Found = append(c.Found, text.Text{EN: "siw (Soft-iWARP): loaded, no device yet", ZH: "siw（Soft-iWARP）：已加载，但还没有设备"}.In(d.Lang))
	case d.available(st, "rdma_rxe"):
		c.Status = Fail
		c.Found = append(c.Found, text.Text{EN: "rdma_rxe (Soft-RoCE): available in " + d.modulesPath(st) + ", not loaded", ZH: "rdma_rxe（Soft-RoCE）：在 " + d.modulesPath(st) + " 中可用，但未加载"}.In(d.Lang))
		c.Fix = append(c.Fix, "modprobe rdma_rxe")
	case d.available(st, "siw"):
		c.Status = Fail
		c.Found = append(c.Found, text.Text{EN: "siw (Soft-iWARP): available in " + d.modulesPath(st) + ", not loaded; no rdma_rxe", ZH: "siw（Soft-iWARP）：在 " + d.modulesPath(st) + " 中可用，但未加载；没有 rdma_rxe"}.In(d.Lang))
		c.Fix = append(c.Fix, "modprobe siw")
	default:
		c.Status = Fail
		c.Found = append(c.Found, text.Text{EN: "no device driver: no RDMA device, and neither rdma_rxe nor siw is loaded or under " + d.modulesPath(st), ZH: "没有设备驱动：没有 RDMA 设备，rdma_rxe 和 siw 都未加载，也不在 " + d.modulesPath(st) + " 中"}.In(d.Lang))
		c.Fix = append(c.Fix, "rdmatour demo --backend sim")
	}
}

func dedup(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// --- Soft-RoCE suggestion / the address to use -----------------------------

// virtualPrefixes name interfaces that are bridges or tunnels on this
// machine, never the NIC a peer reaches.
var virtualPrefixes = []string{"docker", "veth", "virbr", "br-", "cni", "flannel", "cali", "vxlan", "tun", "tap", "wg", "lxcbr", "lxdbr", "podman", "kube", "dummy", "vnet"}

// --- /dev/infiniband -------------------------------------------------------

// --- ulimit -l ---------------------------------------------------------------

// minMemlock is what the tour needs pinned: its MRs (4096 + 4096 + 128 +
// 128 bytes) pin whole pages, 4 pages = 16 KiB, and the CQ and QP rings
// come on top. 64 KiB leaves room for the rings.
const (
	pinnedMRs  = 4 * 4096
	minMemlock = 64 << 10
)

// capIPCLock is CAP_IPC_LOCK's bit in CapEff: with it, the kernel does not
// charge pinned pages against RLIMIT_MEMLOCK (ib_umem_get).
const capIPCLock = 14
