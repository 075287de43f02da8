package guide

import (
	"net/netip"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// RealTools says, at the end of a tour, which rdma-core and perftest
// commands do the same thing, with this run's device, address, port and
// size (steps.Tools): the bridge from rdmatour to the tools a learner
// will meet. snap is this side's last snapshot.
func RealTools(cfg steps.Config, snap steps.Snapshot) text.Text {
	dev, gid := "", -1
	used := snap.UsedDevice
	if used == nil {
		used = snap.Device
	}
	if used != nil {
		gid = used.GIDIndex
		if !snap.Simulated {
			dev = used.Info.Name
		}
	}
	a := steps.ToolArgsOf(cfg, dev, gid)
	if cfg.Role == steps.Server {
		a.Server = listenedOn(a.Server, snap)
	}
	cmds := steps.Tools(effectiveTour(cfg), a)
	if len(cmds) == 0 {
		return text.Text{}
	}
	var en, zh []string
	for _, c := range cmds {
		en = append(en, "server: "+c.Server+"; client: "+c.Client+" ("+c.Package+": "+c.What.EN+")")
		zh = append(zh, "server："+c.Server+"；client："+c.Client+"（"+c.Package+"："+c.What.ZH+"）")
	}
	head := text.Text{EN: "The same with the real tools: ", ZH: "用真实的工具做同样的事："}
	if snap.Simulated {
		head = text.Text{EN: "The same with the real tools, on hosts with an RDMA device (they cannot open the simulated NIC): ",
			ZH: "用真实的工具做同样的事（要在有 RDMA 设备的机器上，这些工具打不开模拟网卡）："}
	}
	return text.Text{EN: head.EN + strings.Join(en, " · ") + ".", ZH: head.ZH + strings.Join(zh, " · ") + "。"}
}

// listenedOn is where the server really listened when --bind left the
// address or the port to the system: the CM id's own address.
func listenedOn(bind netip.AddrPort, snap steps.Snapshot) netip.AddrPort {
	if bind.Addr().IsValid() && !bind.Addr().IsUnspecified() && bind.Port() != 0 || snap.CMID == nil {
		return bind
	}
	got, err := netip.ParseAddrPort(snap.CMID.Local)
	if err != nil {
		return bind
	}
	if got.Addr().IsUnspecified() && bind.Addr().IsValid() {
		got = netip.AddrPortFrom(bind.Addr(), got.Port())
	}
	return got
}
