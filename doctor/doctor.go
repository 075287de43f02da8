// Package doctor checks whether this machine can run rdmatour on real RDMA
// and, for everything that is missing, prints the exact commands that fix
// it. It is what `rdmatour doctor` runs; `rdmatour devices` uses its device
// listing.
//
// Every input (sysfs, /proc, /dev, /lib/modules, the rlimit, the libraries,
// the network interfaces, the PATH) comes through the Doctor struct, so the
// tests can point it at a fake tree in a temporary directory; System fills it
// with this machine's real sources. There is no package-level state.
package doctor

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Status is how a check came out.
type Status int

const (
	OK Status = iota
	// Warn is advice: real RDMA can still work.
	Warn
	// Fail means real RDMA cannot work until it is fixed.
	Fail
)

// Mark is how the status prints at the start of a check's line.
func (s Status) Mark() string {
	switch s {
	case OK:
		return "[ok]"
	case Warn:
		return "[warn]"
	}
	return "[FAIL]"
}

func (s Status) String() string { return strings.Trim(strings.ToLower(s.Mark()), "[]") }

// Check is the outcome of one check.
type Check struct {
	Name   string
	Status Status
	Found  []string // what was found, one line each
	Fix    []string // shell commands that fix it (empty when OK)
}

// Report is the outcome of every check, in order.
type Report struct {
	Checks []Check
	// Devices is what libibverbs listed (nil when it could not be asked).
	Devices []verbs.DeviceInfo
	lang    text.Lang
	root    bool
}

// Problems counts the failed checks: warnings are advice and do not stop
// real RDMA from working.
func (r Report) Problems() int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == Fail {
			n++
		}
	}
	return n
}

// Ready says whether real RDMA works here.
func (r Report) Ready() bool { return r.Problems() == 0 }

// ExitCode is rdmatour doctor's exit status: 0 when ready for real RDMA.
func (r Report) ExitCode() int {
	if r.Ready() {
		return 0
	}
	return 1
}

// Lister is the part of a verbs provider the doctor needs.
type Lister interface {
	Devices() ([]verbs.DeviceInfo, error)
}

// Iface is one network interface (net.Interface, reduced to what the
// Soft-RoCE suggestion needs).
type Iface struct {
	Name     string
	Up       bool
	Loopback bool
	Addrs    []netip.Prefix
}

// IPv4 is the interface's first IPv4 address (invalid when it has none).
func (i Iface) IPv4() netip.Addr {
	for _, p := range i.Addrs {
		if a := p.Addr().Unmap(); a.Is4() && !a.IsLoopback() {
			return a
		}
	}
	return netip.Addr{}
}

// Doctor holds every input of the checks.
type Doctor struct {
	// Lang is the language of the report (Both reads as English).
	Lang text.Lang

	SysfsIB     string   // /sys/class/infiniband
	SysModule   string   // /sys/module (loaded and built-in modules)
	ProcModules string   // /proc/modules
	ProcRoute   string   // /proc/net/route (the IPv4 default route)
	ProcStatus  string   // /proc/self/status (CapEff: CAP_IPC_LOCK)
	ModulesDir  string   // /lib/modules (module files, per kernel release)
	DevIB       string   // /dev/infiniband
	ProviderDir []string // globs of libibverbs provider directories

	// KernelRelease is `uname -r`.
	KernelRelease func() (string, error)
	// Getrlimit returns RLIMIT_MEMLOCK's soft and hard limits in bytes;
	// Unlimited stands for RLIM_INFINITY.
	Getrlimit func() (soft, hard uint64, err error)
	// Open loads libibverbs.so.1 and librdmacm.so.1 (rdmacore.Open).
	Open func() (Lister, error)
	// Interfaces lists the network interfaces (net.Interfaces).
	Interfaces func() ([]Iface, error)
	// HasCommand says whether a program is installed (exec.LookPath, plus
	// the sbin directories a normal user's PATH lacks on Debian).
	HasCommand func(name string) bool
	// Access says whether this user can open path read-write.
	Access func(path string) error
	// Euid is the effective user id (0 = root).
	Euid int
}

// Unlimited is RLIM_INFINITY as Getrlimit reports it.
const Unlimited = ^uint64(0)

// System returns a Doctor that looks at this machine. open loads the real
// verbs libraries (the caller passes rdmacore.Open, so this package stays
// free of cgo and its tests run anywhere).
func System(lang text.Lang, open func() (Lister, error)) *Doctor {
	return &Doctor{
		Lang:        lang,
		SysfsIB:     "/sys/class/infiniband",
		SysModule:   "/sys/module",
		ProcModules: "/proc/modules",
		ProcRoute:   "/proc/net/route",
		ProcStatus:  "/proc/self/status",
		ModulesDir:  "/lib/modules",
		DevIB:       "/dev/infiniband",
		ProviderDir: []string{
			"/usr/lib/*/libibverbs", // Debian, Ubuntu (multiarch)
			"/usr/lib64/libibverbs", // Fedora, RHEL, SUSE
			"/usr/lib/libibverbs",   // Arch, Alpine
			"/usr/local/lib*/libibverbs",
		},
		KernelRelease: func() (string, error) {
			b, err := os.ReadFile("/proc/sys/kernel/osrelease")
			if err != nil {
				return "", fmt.Errorf("kernel release: %w", err)
			}
			return strings.TrimSpace(string(b)), nil
		},
		Getrlimit:  func() (uint64, uint64, error) { return memlockFromLimits("/proc/self/limits") },
		Open:       open,
		Interfaces: systemInterfaces,
		HasCommand: func(name string) bool {
			if _, err := exec.LookPath(name); err == nil {
				return true
			}
			for _, dir := range []string{"/usr/sbin", "/sbin"} {
				if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode()&0o111 != 0 {
					return true
				}
			}
			return false
		},
		Access: func(path string) error {
			// Opening is the honest test of "can this user use it": access(2)
			// answers for the real, not the effective, uid. Opening rdma_cm or
			// uverbsN only creates a file context; closing it frees it.
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				return err
			}
			return f.Close()
		},
		Euid: os.Geteuid(),
	}
}

// MemlockLimit is how many bytes this process may pin (RLIMIT_MEMLOCK's
// soft limit), or 0 when it is unlimited or cannot be read: what the
// engine holds a data MR the learner lengthened against.
func MemlockLimit() uint64 {
	soft, _, err := memlockFromLimits("/proc/self/limits")
	if err != nil || soft == Unlimited {
		return 0
	}
	return soft
}

// memlockFromLimits reads "Max locked memory" from /proc/self/limits; that
// avoids RLIMIT_MEMLOCK's per-architecture number in syscall.Getrlimit.
func memlockFromLimits(path string) (uint64, uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("reading the memlock limit: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "Max locked memory")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			break
		}
		soft, err1 := parseLimit(f[0])
		hard, err2 := parseLimit(f[1])
		if err1 != nil || err2 != nil {
			break
		}
		return soft, hard, nil
	}
	return 0, 0, fmt.Errorf("reading the memlock limit: no \"Max locked memory\" line in %s", path)
}

func parseLimit(s string) (uint64, error) {
	if s == "unlimited" {
		return Unlimited, nil
	}
	return strconv.ParseUint(s, 10, 64)
}

func systemInterfaces() ([]Iface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("listing network interfaces: %w", err)
	}
	var out []Iface
	for _, ni := range ifs {
		i := Iface{Name: ni.Name, Up: ni.Flags&net.FlagUp != 0, Loopback: ni.Flags&net.FlagLoopback != 0}
		addrs, _ := ni.Addrs() // an interface without addresses is still listed
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				i.Addrs = append(i.Addrs, p)
			}
		}
		out = append(out, i)
	}
	return out, nil
}

// Run makes every check, in the order they print.
func (d *Doctor) Run() Report {
	r := Report{lang: d.Lang, root: d.Euid == 0}
	st := d.gather()
	r.Devices = st.devs
	r.Checks = []Check{
		d.checkLibraries(st),
		d.checkProviders(st),
		d.checkModules(st),
		d.checkDevices(st),
		d.checkSoftRoCE(st),
		d.checkDevNodes(st),
		d.checkMemlock(),
	}
	return r
}

// Write prints the report: one line per check, what was found indented,
// fix commands indented with "$ ", and the verdict.
func (r Report) Write(w io.Writer) {
	zh := r.lang == text.ZH
	for _, c := range r.Checks {
		fmt.Fprintf(w, "%-6s %s\n", c.Status.Mark(), c.Name)
		for _, f := range c.Found {
			fmt.Fprintf(w, "       %s\n", f)
		}
		for _, f := range c.Fix {
			fmt.Fprintf(w, "       $ %s\n", f)
		}
	}
	fmt.Fprintln(w)
	n := r.Problems()
	switch {
	case n == 0 && zh:
		fmt.Fprintln(w, "ready: real RDMA works here（可以使用真实 RDMA）")
	case n == 0:
		fmt.Fprintln(w, "ready: real RDMA works here")
	case zh:
		fmt.Fprintf(w, "not ready for real RDMA: %d problem(s) — rdmatour will use the simulated NIC (--backend sim)\n", n)
		fmt.Fprintf(w, "（尚不能使用真实 RDMA：%d 个问题；rdmatour 会改用模拟网卡 --backend sim）\n", n)
	default:
		fmt.Fprintf(w, "not ready for real RDMA: %d problem(s) — rdmatour will use the simulated NIC (--backend sim)\n", n)
	}
	if n > 0 && !r.root {
		if zh {
			fmt.Fprintln(w, "（当前不是 root：apt-get、modprobe、rdma、ip、chmod、tee 命令请加 sudo 运行）")
		} else {
			fmt.Fprintln(w, "(not root: run the apt-get, modprobe, rdma, ip, chmod and tee commands with sudo)")
		}
	}
}
