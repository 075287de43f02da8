package steps

import (
	"net/netip"

	"github.com/rdmatour/rdmatour/text"
)

// The steps every tour takes the same way (the RC tours and the UD tour):
// one definition each, so the tours cannot drift apart.

func eventChannelStep(side Role) Step {
	return Step{ID: IDCreateEventChannel, Side: side, Section: SectionCMID,
		Title: text.Text{EN: "Create the CM event channel", ZH: "创建 CM 事件通道"},
		Call:  generic(createEventChannelCall()), run: stepCreateEventChannel}
}

func bindAddrStep() Step {
	return Step{ID: IDBindAddr, Side: Server, Section: SectionDevice,
		Title: text.Text{EN: "Bind it to an address and port", ZH: "绑定地址和端口"},
		Call:  generic(bindAddrCall(netip.AddrPort{})), run: stepBindAddr}
}

func listenStep() Step {
	return Step{ID: IDListen, Side: Server, Section: SectionCMID, Milestones: MilestoneListening,
		Title: text.Text{EN: "Listen for connection requests", ZH: "开始监听连接请求"},
		Call:  generic(listenCall()), run: stepListen}
}

func allocPDStep(side Role) Step {
	return Step{ID: IDAllocPD, Side: side, Section: SectionPD, roomShared: side == Server,
		Title: text.Text{EN: "Allocate a protection domain", ZH: "分配保护域 PD"},
		Call:  generic(allocPDCall()), run: stepAllocPD}
}

func createCQStep(side Role) Step {
	return Step{ID: IDCreateCQ, Side: side, Section: SectionCQ,
		Title: text.Text{EN: "Create a completion queue", ZH: "创建完成队列 CQ"},
		Call:  generic(createCQCall(CQDepth, nil)), run: stepCreateCQ}
}

func resolveAddrStep() Step {
	return Step{ID: IDResolveAddr, Side: Client, Section: SectionDevice, Waits: true,
		Title: text.Text{EN: "Resolve the server's address to a device", ZH: "把 server 地址解析到本地 RDMA 设备"},
		Call:  resolveAddrGeneric(), run: stepResolveAddr}
}

func resolveRouteStep() Step {
	return Step{ID: IDResolveRoute, Side: Client, Section: SectionCMID, Waits: true,
		Title: text.Text{EN: "Resolve the route", ZH: "解析路由"},
		Call:  resolveRouteGeneric(), run: stepResolveRoute}
}
