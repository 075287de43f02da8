package doctor

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The RDMA devices and their ports, as ibv_devinfo shows them.

// upper prints a port state the way ibv_devinfo does (PORT_ACTIVE → ACTIVE).
func upper(s verbs.PortState) string {
	return strings.ToUpper(strings.ReplaceAll(s.String(), " ", "_"))
}

func (d *Doctor) checkDevices(st state) Check {
	c := Check{Name: text.Text{EN: "RDMA devices and ports", ZH: "RDMA 设备与端口"}.In(d.Lang)}
	switch {
	case st.openErr != nil:
		c.Status = Fail
		if len(st.sysDevs) > 0 {
			c.Found = []string{text.Text{EN: "the kernel has " + strings.Join(st.sysDevs, ", ") + ", but libibverbs could not be loaded (see above)", ZH: "内核中有 " + strings.Join(st.sysDevs, "、") + "，但无法加载 libibverbs（见上）"}.In(d.Lang)}
		} else {
			c.Found = []string{text.Text{EN: "cannot list devices: libibverbs could not be loaded (see above)", ZH: "无法列出设备：无法加载 libibverbs（见上）"}.In(d.Lang)}
		}
		return c
	case st.devsErr != nil:
		c.Status = Fail
		c.Found = []string{text.Text{EN: "listing devices: ", ZH: "列出设备失败："}.In(d.Lang) + st.devsErr.Error()}
		return c
	case len(st.devs) == 0:
		c.Status = Fail
		c.Found = []string{text.Text{EN: "no RDMA devices (ibv_get_device_list is empty)", ZH: "没有 RDMA 设备（ibv_get_device_list 为空）"}.In(d.Lang)}
		if len(st.sysDevs) > 0 {
			c.Found = append(c.Found, text.Text{EN: "but the kernel has " + strings.Join(st.sysDevs, ", ") + ": its provider library is missing", ZH: "但内核中有 " + strings.Join(st.sysDevs, "、") + "：缺少对应的 provider 库"}.In(d.Lang))
			c.Fix = []string{"apt-get install ibverbs-providers"}
		} else {
			c.Found = append(c.Found, text.Text{EN: "see Soft-RoCE below", ZH: "见下面的 Soft-RoCE"}.In(d.Lang))
		}
		return c
	}
	active := 0
	var fixes []string
	for _, dv := range st.devs {
		nd := strings.Join(dv.Netdevs, ", ")
		if nd == "" {
			nd = "-"
		}
		c.Found = append(c.Found, fmt.Sprintf("%s (%s, netdev %s)", dv.Name, dv.Transport, nd))
		if dv.IsIWARP() {
			c.Found = append(c.Found, iwarpTours(dv.Name).In(d.Lang))
		}
		for _, p := range dv.Ports {
			if d.port(dv, p, &c, &fixes) {
				active++
			}
		}
	}
	c.Fix = dedup(fixes)
	if active == 0 {
		// Warnings are per port; with no ACTIVE port anywhere nothing can
		// connect, so the check as a whole fails.
		c.Status = Fail
		c.Found = append(c.Found, text.Text{EN: "no port is ACTIVE: nothing can connect yet", ZH: "没有任何端口处于 ACTIVE：还无法建立连接"}.In(d.Lang))
	}
	return c
}

// port adds what one port shows to c, and the fix for a port that is not
// ACTIVE to fixes; it reports whether the port is ACTIVE.
func (d *Doctor) port(dv verbs.DeviceInfo, p verbs.PortAttr, c *Check, fixes *[]string) bool {
	c.Found = append(c.Found, fmt.Sprintf("  port %d: %s, MTU %d (max %d), %s", p.Num, upper(p.State), p.ActiveMTU, p.MaxMTU, p.LinkLayer))
	for _, g := range p.GIDs {
		c.Found = append(c.Found, fmt.Sprintf("    GID[%d] %s %s", g.Index, g.GID, g.Type))
	}
	if p.State == verbs.PortActive {
		return true
	}
	c.Status = Warn
	if p.LinkLayer == "InfiniBand" {
		c.Found = append(c.Found, text.Text{EN: fmt.Sprintf("  %s port %d is not ACTIVE: check the cable and that a subnet manager runs", dv.Name, p.Num), ZH: fmt.Sprintf("  %s 端口 %d 不是 ACTIVE：检查线缆以及子网管理器是否在运行", dv.Name, p.Num)}.In(d.Lang))
		*fixes = append(*fixes, "systemctl start opensm")
		return false
	}
	c.Found = append(c.Found, text.Text{EN: fmt.Sprintf("  %s port %d is not ACTIVE: its network interface is down", dv.Name, p.Num), ZH: fmt.Sprintf("  %s 端口 %d 不是 ACTIVE：它的网络接口没有启用", dv.Name, p.Num)}.In(d.Lang))
	if len(dv.Netdevs) == 0 {
		*fixes = append(*fixes, "ip link set <nic> up")
	}
	for _, n := range dv.Netdevs {
		*fixes = append(*fixes, "ip link set "+n+" up")
	}
	return false
}

// iwarpTours says what runs on an iWARP device (siw0 and iWARP NICs):
// its transport type decides, not its name (steps/iwarp.go refuses the
// rest when a tour starts).
func iwarpTours(name string) text.Text {
	return text.Text{EN: "  " + name + " is iWARP (RDMA over TCP): the write and read tours run on it; the atomic and ud tours and --notify imm do not (no atomics, no UD QP, no immediate data)",
		ZH: "  " + name + " 是 iWARP（跑在 TCP 上的 RDMA）：write 和 read 教程可以在它上面运行；atomic、ud 教程和 --notify imm 不行（没有原子操作、没有 UD QP、没有立即数）"}
}
