package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rdmatour/rdmatour/doctor"
	"github.com/rdmatour/rdmatour/exercise"
	"github.com/rdmatour/rdmatour/progress"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// defaultCheckLimit is how long check lets the learner's program run: a
// tour takes about a second on a real device; what runs longer is a wait
// that will never end.
const defaultCheckLimit = 30 * time.Second

// check builds the learner's program, runs it against rdmatour's side of
// the tour on the real device, and judges the run.
func (r exerciseRun) check(ctx context.Context) int {
	src := filepath.Join(r.dir, r.ex.FileName())
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		r.say(r.c.stderr, text.Text{
			EN: fmt.Sprintf("rdmatour exercise: there is no %s: write it first with rdmatour exercise start %s --dir %s", src, r.ex.Name, r.dir),
			ZH: fmt.Sprintf("rdmatour exercise：没有 %s：先用 rdmatour exercise start %s --dir %s 写出来", src, r.ex.Name, r.dir)})
		return 2
	}
	bin, failed := r.build(ctx, src)
	if failed {
		return 1
	}
	dev, err := r.device()
	if err != nil {
		r.noDevice(err)
		return 1
	}
	before := readHWCounters(dev.name)
	ev, err := r.runAgainstPeer(ctx, bin, dev.prov, dev.addr)
	if err != nil {
		fmt.Fprintf(r.c.stderr, "rdmatour exercise: running the check: %s\n", steps.ExplainIn(err, r.lang.Primary()))
		return 1
	}
	ev.Counters, ev.CountersOf = counterDelta(before, readHWCounters(dev.name)), dev.name+" port 1"
	v := r.judge(ctx, ev, src)
	r.say(r.c.stdout, v.Says)
	for _, line := range v.Evidence {
		r.say(r.c.stdout, text.Text{EN: "  · " + line.EN, ZH: "  · " + line.In(text.ZH)})
	}
	if !v.Pass {
		r.say(r.c.stdout, text.Text{EN: "Stuck? rdmatour exercise hint " + r.ex.Name, ZH: "卡住了？rdmatour exercise hint " + r.ex.Name})
		return 1
	}
	r.update(func(f *progress.File) {
		st := f.Exercise(r.ex.Name)
		st.Started, st.Passed = true, true
		f.SetExercise(r.ex.Name, st)
	})
	return 0
}

// judge gives the run's verdict, with the learner's source to point into.
func (r exerciseRun) judge(ctx context.Context, ev exercise.Evidence, src string) exercise.Verdict {
	if b, err := os.ReadFile(src); err == nil {
		ev.Source = string(b)
	}
	v := r.ex.Judge(ev)
	if _, _, still := r.ex.WhereToLook(ev.Source); !v.Pass && !still {
		// Where the program departs from the solution: only worth the
		// tour's run on the simulated NIC that writes it when the
		// exercise's own change is gone.
		if p, err := r.programs(ctx); err == nil {
			ev.Solution = p.Solution
			v = r.ex.Judge(ev)
		}
	}
	return v
}

// build compiles src as every exercise test does; failed means it said
// why.
func (r exerciseRun) build(ctx context.Context, src string) (bin string, failed bool) {
	if _, err := exec.LookPath("gcc"); err != nil {
		r.say(r.c.stderr, text.Text{
			EN: "rdmatour exercise: gcc is not installed. Debian/Ubuntu: sudo apt-get install gcc libibverbs-dev librdmacm-dev; Fedora: sudo dnf install gcc rdma-core-devel",
			ZH: "rdmatour exercise：没有安装 gcc。Debian/Ubuntu：sudo apt-get install gcc libibverbs-dev librdmacm-dev；Fedora：sudo dnf install gcc rdma-core-devel"})
		return "", true
	}
	bin = filepath.Join(r.dir, r.ex.Name)
	if upToDate(bin, src) { // as make would: the program built since the last save
		return bin, false
	}
	out, err := exec.CommandContext(ctx, "gcc", "-std=c99", "-Wall", "-Werror", "-o", bin, src, "-libverbs", "-lrdmacm").CombinedOutput()
	if err != nil {
		r.say(r.c.stdout, text.Text{EN: "fail: " + src + " does not build (gcc -std=c99 -Wall -Werror):", ZH: "未通过：" + src + " 编译不过（gcc -std=c99 -Wall -Werror）："})
		fmt.Fprint(r.c.stdout, privdata.PeerBytes(out).String()+"\n")
		return "", true
	}
	return bin, false
}

// upToDate says bin was built after src was last written.
func upToDate(bin, src string) bool {
	b, errB := os.Stat(bin)
	s, errS := os.Stat(src)
	return errB == nil && errS == nil && b.ModTime().After(s.ModTime())
}

// checkDevice is where a check runs: the real verbs, an IPv4 address on
// an RDMA device, and that device's name (its counters).
type checkDevice struct {
	prov verbs.Provider
	addr netip.Addr
	name string
}

// device opens the real verbs and finds an IPv4 address on an RDMA
// device: the learner's program and rdmatour's side meet there.
func (r exerciseRun) device() (checkDevice, error) {
	p, err := openReal(netip.Addr{})
	if err != nil {
		return checkDevice{}, err
	}
	devs, err := p.(doctor.Lister).Devices()
	if err != nil {
		return checkDevice{}, err
	}
	for _, d := range devs {
		for _, nd := range d.Netdevs {
			if a, ok := ipv4Of(nd); ok {
				return checkDevice{prov: p, addr: a, name: d.Name}, nil
			}
		}
	}
	return checkDevice{}, fmt.Errorf("no RDMA device has an IPv4 address (%s)", deviceAddrs(devs))
}

// readHWCounters reads port 1's hw_counters of device dev from sysfs
// (rxe's RNR NAKs, retries, ...); nil where there are none.
func readHWCounters(dev string) map[string]uint64 {
	dir := filepath.Join("/sys/class/infiniband", dev, "ports", "1", "hw_counters")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]uint64{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if n, perr := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && perr == nil {
			out[e.Name()] = n
		}
	}
	return out
}

// counterDelta is how much each counter moved from before to after.
func counterDelta(before, after map[string]uint64) map[string]uint64 {
	if before == nil || after == nil {
		return nil
	}
	out := map[string]uint64{}
	for k, v := range after {
		if v > before[k] {
			out[k] = v - before[k]
		}
	}
	return out
}

// ipv4Of is the first IPv4 address of the network interface name.
func ipv4Of(name string) (netip.Addr, bool) {
	ifc, err := net.InterfaceByName(name)
	if err != nil {
		return netip.Addr{}, false
	}
	addrs, _ := ifc.Addrs()
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Is4() {
			return p.Addr(), true
		}
	}
	return netip.Addr{}, false
}

// noDevice says plainly that check cannot run here, and what doctor says.
func (r exerciseRun) noDevice(err error) {
	r.say(r.c.stdout, text.Text{
		EN: "cannot check: this machine has no usable RDMA device (" + err.Error() + ").\nThe exercise runs real verbs calls; rdmatour's simulated NIC cannot run your C program.\nWhat rdmatour doctor says about this machine:",
		ZH: "无法检查：这台机器上没有可用的 RDMA 设备（" + err.Error() + "）。\n练习跑的是真实的 verbs 调用；rdmatour 的模拟网卡跑不了你的 C 程序。\nrdmatour doctor 对这台机器的检查结果："})
	doctor.System(r.lang, openLister).Run().Write(r.c.stdout)
	r.say(r.c.stdout, text.Text{
		EN: "The page still reads without a device: " + r.pageName(),
		ZH: "没有设备也可以读页面：" + r.pageName()})
}

// learnerArgs are the command line of the learner's program against
// rdmatour's side at addr:port.
func (r exerciseRun) learnerArgs(addr netip.Addr, port int) []string {
	if r.ex.Role == steps.Server {
		return []string{"server", fmt.Sprint(port)}
	}
	return []string{"client", addr.String(), fmt.Sprint(port)}
}

// checkPort is the rdma_cm port of one check: --port, else one off the
// tour's default, so a check does not meet a tour running beside it.
func (r exerciseRun) checkPort() int {
	if r.port > 0 {
		return r.port
	}
	return steps.DefaultPort + 1000 + os.Getpid()%1000
}

// lastStderrLine is the last non-empty line of out, escaped.
func lastStderrLine(out []byte) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	return privdata.PeerBytes(strings.TrimSpace(lines[len(lines)-1])).String()
}

// waitProgramListens returns once the learner's server printed that it
// listens (or after five seconds, or when it ended).
func waitProgramListens(stdout *bufio.Reader, ended <-chan struct{}) {
	got := make(chan struct{})
	go func() {
		for {
			line, err := stdout.ReadString('\n')
			if strings.Contains(line, "listening") {
				close(got)
				break
			}
			if err != nil {
				return
			}
		}
		for { // keep draining, so the program never blocks on a full pipe
			if _, err := stdout.ReadString('\n'); err != nil {
				return
			}
		}
	}()
	select {
	case <-got:
	case <-ended:
	case <-time.After(5 * time.Second):
	}
}

// killGroup stops the learner's program and anything it started.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
