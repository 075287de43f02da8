package doctor

// Checks of the host around the device: Soft-RoCE's NIC and address, device files, memlock.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdmatour/rdmatour/text"
)

func isVirtual(name string) bool {
	for _, p := range virtualPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// pickNIC is the NIC for Soft-RoCE: up, not loopback or virtual, with an
// IPv4 address; one with the default route first.
func pickNIC(ifaces []Iface, defRt map[string]bool) (Iface, bool) {
	var fallback *Iface
	for i := range ifaces {
		ni := ifaces[i]
		if !ni.Up || ni.Loopback || ni.Name == "lo" || isVirtual(ni.Name) || !ni.IPv4().IsValid() {
			continue
		}
		if defRt[ni.Name] {
			return ni, true
		}
		if fallback == nil {
			fallback = &ifaces[i]
		}
	}
	if fallback != nil {
		return *fallback, true
	}
	return Iface{}, false
}

func (d *Doctor) ifaceByName(st state, name string) (Iface, bool) {
	for _, i := range st.ifaces {
		if i.Name == name {
			return i, true
		}
	}
	return Iface{}, false
}

func usage(addr string) []string {
	return []string{"rdmatour server --bind " + addr, "rdmatour client " + addr}
}

func (d *Doctor) checkSoftRoCE(st state) Check {
	if len(st.devs) > 0 {
		return d.checkAddress(st)
	}
	c := Check{Name: text.Text{EN: "Soft-RoCE (RDMA over this machine's Ethernet NIC)", ZH: "Soft-RoCE（在本机以太网卡上跑 RDMA）"}.In(d.Lang), Status: Warn}
	if st.ifErr != nil {
		c.Found = []string{st.ifErr.Error()}
		return c
	}
	nic, ok := pickNIC(st.ifaces, st.defRt)
	if !ok {
		c.Found = []string{text.Text{EN: "no NIC with an IPv4 address (besides lo and bridges): rdma_cm finds devices by IP address", ZH: "没有带 IPv4 地址的网卡（lo 与网桥除外）：rdma_cm 按 IP 地址找设备"}.In(d.Lang)}
		c.Fix = []string{"ip addr add <address>/24 dev <nic>", "ip link set <nic> up"}
		return c
	}
	addr := nic.IPv4().String()
	route := text.Text{EN: " (default route)", ZH: "（默认路由）"}.In(d.Lang)
	if !st.defRt[nic.Name] {
		route = ""
	}
	link := "rdma link add rxe0 type rxe netdev " + nic.Name
	if d.noRDMAKernel(st) {
		c.Found = []string{
			text.Text{EN: "this kernel has no rdma_rxe; on a kernel that has it, Soft-RoCE on " + nic.Name + " " + addr + route + " would be:", ZH: "这个内核没有 rdma_rxe；在有它的内核上，" + nic.Name + " " + addr + route + " 上的 Soft-RoCE 是："}.In(d.Lang),
			"  modprobe rdma_rxe",
			"  " + link,
		}
		c.Fix = []string{"rdmatour demo --backend sim"}
		return c
	}
	c.Found = []string{text.Text{EN: "no RDMA device: make one on " + nic.Name + " " + addr + route + ", then use " + addr + " with rdmatour", ZH: "没有 RDMA 设备：在 " + nic.Name + " " + addr + route + " 上创建一个，然后在 rdmatour 中使用 " + addr}.In(d.Lang)}
	if !d.HasCommand("rdma") {
		c.Found = append(c.Found, text.Text{EN: "the rdma tool (iproute2) is not installed; Fedora/RHEL: dnf install iproute", ZH: "没有安装 rdma 工具（iproute2）；Fedora/RHEL：dnf install iproute"}.In(d.Lang))
		c.Fix = append(c.Fix, "apt-get install iproute2")
	}
	if !d.loaded(st, "rdma_rxe") && !d.available(st, "rdma_rxe") && (d.loaded(st, "siw") || d.available(st, "siw")) {
		// A kernel with siw and no rxe: Soft-iWARP is the device to make.
		c.Found = append(c.Found, iwarpTours("siw0").In(d.Lang))
		if !d.loaded(st, "siw") {
			c.Fix = append(c.Fix, "modprobe siw")
		}
		c.Fix = append(c.Fix, "rdma link add siw0 type siw netdev "+nic.Name)
		c.Fix = append(c.Fix, usage(addr)...)
		return c
	}
	if !d.loaded(st, "rdma_rxe") {
		c.Fix = append(c.Fix, "modprobe rdma_rxe")
	}
	c.Fix = append(c.Fix, link)
	c.Fix = append(c.Fix, usage(addr)...)
	return c
}

// checkAddress says which address to give rdmatour when devices exist:
// rdma_cm picks the device from the IP address, so the netdev needs one.
func (d *Doctor) checkAddress(st state) Check {
	c := Check{Name: text.Text{EN: "address for rdmatour (rdma_cm finds the device by IP)", ZH: "rdmatour 使用的地址（rdma_cm 按 IP 找设备）"}.In(d.Lang)}
	var noAddr []string
	for _, dv := range st.devs {
		for _, n := range dv.Netdevs {
			ni, ok := d.ifaceByName(st, n)
			if !ok || !ni.IPv4().IsValid() {
				noAddr = append(noAddr, n)
				continue
			}
			addr := ni.IPv4().String()
			if len(c.Fix) == 0 {
				c.Fix = usage(addr)
			}
			c.Found = append(c.Found, text.Text{EN: dv.Name + " is on " + n + " " + addr + ": use " + addr + " with rdmatour", ZH: dv.Name + " 在 " + n + " " + addr + " 上：rdmatour 请使用 " + addr}.In(d.Lang))
		}
	}
	if len(c.Found) > 0 {
		// Usage lines are not fixes: show them as found text when all is well.
		for _, u := range c.Fix {
			c.Found = append(c.Found, "  "+u)
		}
		c.Fix = nil
		return c
	}
	c.Status = Warn
	if len(noAddr) == 0 {
		// InfiniBand without IPoIB, or a device whose netdev is unknown.
		c.Found = []string{text.Text{EN: "no device sits on a network interface: rdma_cm needs an IP address (IPoIB on InfiniBand)", ZH: "没有设备关联到网络接口：rdma_cm 需要 IP 地址（InfiniBand 上需要 IPoIB）"}.In(d.Lang)}
		return c
	}
	c.Found = []string{text.Text{EN: strings.Join(noAddr, ", ") + " has no IPv4 address: rdma_cm cannot find the device", ZH: strings.Join(noAddr, "、") + " 没有 IPv4 地址：rdma_cm 找不到设备"}.In(d.Lang)}
	c.Fix = []string{"ip addr add <address>/24 dev " + noAddr[0]}
	return c
}

func (d *Doctor) checkDevNodes(st state) Check {
	c := Check{Name: text.Text{EN: "device files (" + d.DevIB + "/rdma_cm, uverbs*)", ZH: "设备文件（" + d.DevIB + "/rdma_cm、uverbs*）"}.In(d.Lang)}
	cm := filepath.Join(d.DevIB, "rdma_cm")
	uverbs, _ := filepath.Glob(filepath.Join(d.DevIB, "uverbs*"))
	var denied []string
	if _, err := os.Stat(cm); err != nil {
		c.Status = Fail
		if d.noRDMAKernel(st) {
			c.Found = append(c.Found, text.Text{EN: cm + " is missing: this kernel has no RDMA", ZH: cm + " 不存在：这个内核不支持 RDMA"}.In(d.Lang))
			c.Fix = append(c.Fix, "rdmatour demo --backend sim")
		} else {
			c.Found = append(c.Found, text.Text{EN: cm + " is missing (rdma_ucm not loaded)", ZH: cm + " 不存在（rdma_ucm 未加载）"}.In(d.Lang))
			c.Fix = append(c.Fix, "modprobe rdma_ucm")
		}
	} else if err := d.Access(cm); err != nil {
		denied = append(denied, cm)
		c.Found = append(c.Found, fmt.Sprintf("%s: %v", cm, cause(err)))
	} else {
		c.Found = append(c.Found, text.Text{EN: cm + ": read-write", ZH: cm + "：可读写"}.In(d.Lang))
	}
	switch {
	case len(uverbs) == 0 && len(st.devs) == 0:
		c.Found = append(c.Found, text.Text{EN: d.DevIB + "/uverbs*: none yet (one appears per device)", ZH: d.DevIB + "/uverbs*：暂无（每个设备一个）"}.In(d.Lang))
	case len(uverbs) == 0:
		c.Status = Fail
		c.Found = append(c.Found, text.Text{EN: d.DevIB + "/uverbs*: missing although devices exist (ib_uverbs not loaded)", ZH: d.DevIB + "/uverbs*：有设备却不存在（ib_uverbs 未加载）"}.In(d.Lang))
		c.Fix = append(c.Fix, "modprobe ib_uverbs")
	}
	for _, u := range uverbs {
		if err := d.Access(u); err != nil {
			denied = append(denied, u)
			c.Found = append(c.Found, fmt.Sprintf("%s: %v", u, cause(err)))
		} else {
			c.Found = append(c.Found, text.Text{EN: u + ": read-write", ZH: u + "：可读写"}.In(d.Lang))
		}
	}
	if len(denied) > 0 {
		c.Status = Fail
		c.Found = append(c.Found, text.Text{EN: "this user cannot open them read-write; rdma-core's udev rules normally make them 0666", ZH: "当前用户无法以读写方式打开；rdma-core 的 udev 规则通常会把它们设为 0666"}.In(d.Lang))
		c.Fix = append(c.Fix,
			"chmod 0666 "+strings.Join(denied, " "),
			`printf 'KERNEL=="rdma_cm", MODE="0666"\nKERNEL=="uverbs*", MODE="0666"\n' | tee /etc/udev/rules.d/90-rdmatour.rules`)
	}
	return c
}

// cause drops the path from an *fs.PathError: the line already names it.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (d *Doctor) hasIPCLock() bool {
	b, err := os.ReadFile(d.ProcStatus)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			var caps uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%x", &caps); err != nil {
				return false
			}
			return caps&(1<<capIPCLock) != 0
		}
	}
	return false
}

func bytesString(n uint64) string {
	switch {
	case n == Unlimited:
		return "unlimited"
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func (d *Doctor) checkMemlock() Check {
	c := Check{Name: text.Text{EN: "locked-memory limit (ulimit -l)", ZH: "锁定内存上限（ulimit -l）"}.In(d.Lang)}
	need := text.Text{EN: "the tour pins 4 pages (16 KiB) of MRs plus CQ/QP rings: need at least 64 KiB; unlimited recommended", ZH: "教程的 MR 会锁定 4 个页（16 KiB），另加 CQ/QP 环：至少需要 64 KiB，建议 unlimited"}.In(d.Lang)
	soft, hard, err := d.Getrlimit()
	if d.hasIPCLock() {
		found := text.Text{EN: "CAP_IPC_LOCK (root): exempt from the limit", ZH: "拥有 CAP_IPC_LOCK（root）：不受此上限约束"}.In(d.Lang)
		if err == nil {
			found += fmt.Sprintf(" (RLIMIT_MEMLOCK %s)", bytesString(soft))
		}
		c.Found = []string{found, need}
		return c
	}
	if err != nil {
		c.Status = Warn
		c.Found = []string{err.Error(), need}
		return c
	}
	c.Found = []string{fmt.Sprintf("RLIMIT_MEMLOCK: soft %s, hard %s", bytesString(soft), bytesString(hard)), need}
	switch {
	case soft == Unlimited || soft >= minMemlock:
		return c
	case soft >= pinnedMRs:
		c.Status = Warn
	default:
		c.Status = Fail
		c.Found = append(c.Found, text.Text{EN: "ibv_reg_mr will fail (EPERM/ENOMEM) with this limit", ZH: "在这个上限下 ibv_reg_mr 会失败（EPERM/ENOMEM）"}.In(d.Lang))
	}
	c.Fix = []string{
		"ulimit -l unlimited",
		"echo '* soft memlock unlimited' | tee -a /etc/security/limits.conf",
		"echo '* hard memlock unlimited' | tee -a /etc/security/limits.conf",
	}
	switch {
	case hard == Unlimited:
		// Anyone may raise a soft limit up to the hard one: no root needed
		// for this shell; limits.conf makes it stick.
		c.Found = append(c.Found, text.Text{EN: "the hard limit is unlimited: `ulimit -l unlimited` works in this shell without root; the limits.conf lines make it permanent (log in again)", ZH: "硬上限为 unlimited：在当前 shell 中无需 root 即可 `ulimit -l unlimited`；limits.conf 中的两行使其永久生效（需重新登录）"}.In(d.Lang))
	case hard >= minMemlock:
		c.Fix[0] = fmt.Sprintf("ulimit -l %d", hard>>10) // ulimit -l counts KiB
		c.Found = append(c.Found, text.Text{EN: "`" + c.Fix[0] + "` (the hard limit) works in this shell without root; the limits.conf lines allow unlimited (log in again)", ZH: "`" + c.Fix[0] + "`（硬上限）在当前 shell 中无需 root；limits.conf 中的两行允许 unlimited（需重新登录）"}.In(d.Lang))
	default:
		c.Found = append(c.Found, text.Text{EN: "`ulimit -l unlimited` works in a root shell; otherwise add the limits.conf lines and log in again", ZH: "`ulimit -l unlimited` 需在 root shell 中执行；否则在 limits.conf 中加入这两行并重新登录"}.In(d.Lang))
	}
	return c
}
