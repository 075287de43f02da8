package steps

import (
	"net"
	"net/netip"
	"slices"
	"syscall"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The no-such-address lesson: the client resolves an address that no
// RDMA device has — one of this host's own addresses, on an interface
// with no RDMA device on it. The route is fine, so rdma_resolve_addr
// returns 0; the answer comes as RDMA_CM_EVENT_ADDR_ERROR with status
// -ENODEV, when rdma_cm finds no device whose GID table holds the
// address.

// NoDeviceAddr is the address the no-such-address lesson's page tells a
// host with none to add to lo (and the tests add): not 127/8, which
// rdma_cm binds to any device.
const NoDeviceAddr = "10.99.0.1"

func lessonNoSuchAddress() Lesson {
	return Lesson{Name: "no-such-address", Notify: NotifySend, by: Client,
		Title:   text.Text{EN: "rdma_resolve_addr to an address no RDMA device has", ZH: "rdma_resolve_addr 解析一个没有 RDMA 设备的地址"},
		Summary: text.Text{EN: "the client resolves an address of this host on an interface with no RDMA device: rdma_resolve_addr returns 0, then RDMA_CM_EVENT_ADDR_ERROR with status -19 (ENODEV)", ZH: "client 解析本机上一个没有 RDMA 设备的网口的地址：rdma_resolve_addr 返回 0，随后是 RDMA_CM_EVENT_ADDR_ERROR，status -19（ENODEV）"},
		edit:    editSetupFailure(IDResolveAddr, func() *Expect { return expectAddrError(syscall.ENODEV) }),
		client:  Mistake{Resolve: addressWithoutDevice}, predict: predictNoSuchAddress}
}

func predictNoSuchAddress(cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil // the server only listens
	}
	return &Prediction{At: IDResolveAddr,
		Question: text.Text{EN: "The client calls rdma_resolve_addr with an address of its own host that sits on an interface with no RDMA device. How does the resolution end?",
			ZH: "client 用本机一个网口的地址调用 rdma_resolve_addr，而那个网口上没有 RDMA 设备。地址解析会怎样结束？"},
		Choices: []Choice{
			{Text: text.Text{EN: "RDMA_CM_EVENT_ADDR_RESOLVED (the address is local, so it resolves)", ZH: "RDMA_CM_EVENT_ADDR_RESOLVED（地址是本机的，所以能解析）"},
				happened: func(err error, _ *Session) bool { return err == nil }},
			eventChoice(verbs.EventAddrError, text.Text{EN: "an event after the call returned 0", ZH: "调用返回 0 之后来的事件"}),
			errnoChoice("rdma_resolve_addr", syscall.ENETUNREACH),
			errnoChoice("rdma_resolve_addr", syscall.EADDRNOTAVAIL),
		}}
}

// addressWithoutDevice is the lesson's destination: the first address of
// this host on an interface none of p's devices sits on, at the server's
// port. A host with none gets the server's address back and a note
// saying how to add one: the resolution then succeeds, and the lesson
// says that it expected otherwise, and why.
func addressWithoutDevice(p verbs.Provider, server netip.AddrPort) (netip.AddrPort, text.Text) {
	devs, err := p.Devices()
	if err != nil {
		return server, text.Text{EN: "The lesson could not list the RDMA devices: " + err.Error(), ZH: "本课无法列出 RDMA 设备：" + err.Error()}
	}
	var used []string
	for _, d := range devs {
		used = append(used, d.Netdevs...)
	}
	if ifs, err := net.Interfaces(); err == nil {
		for _, ifc := range ifs {
			if slices.Contains(used, ifc.Name) || ifc.Flags&net.FlagUp == 0 {
				continue
			}
			if a, ok := firstRoutable(ifc); ok {
				return netip.AddrPortFrom(a, server.Port()), text.Text{}
			}
		}
	}
	return server, text.Text{EN: "This host has no address on an interface without an RDMA device (the devices sit on " + joinNames(used) + "), so the lesson resolved the server's address instead. Give lo one, as root: `ip addr add " + NoDeviceAddr + "/32 dev lo`, and run the lesson again (`ip addr del " + NoDeviceAddr + "/32 dev lo` removes it).",
		ZH: "这台主机上没有位于无 RDMA 设备网口上的地址（设备在 " + joinNames(used) + " 上），所以本课改为解析 server 的地址。请以 root 给 lo 加一个：`ip addr add " + NoDeviceAddr + "/32 dev lo`，然后重新运行本课（`ip addr del " + NoDeviceAddr + "/32 dev lo` 可以删掉它）。"}
}

// firstRoutable is ifc's first IPv4 address outside 127/8 (rdma_cm binds
// a loopback address to any device; IPv6 link-local ones need a scope).
func firstRoutable(ifc net.Interface) (netip.Addr, bool) {
	addrs, err := ifc.Addrs()
	if err != nil {
		return netip.Addr{}, false
	}
	for _, x := range addrs {
		pn, ok := x.(*net.IPNet)
		if !ok {
			continue
		}
		if a, ok := netip.AddrFromSlice(pn.IP); ok && a.Unmap().Is4() && !a.Unmap().IsLoopback() {
			return a.Unmap(), true
		}
	}
	return netip.Addr{}, false
}

func joinNames(names []string) string {
	if len(names) == 0 {
		return "no interface"
	}
	out := names[0]
	for _, n := range names[1:] {
		out += ", " + n
	}
	return out
}
