package steps

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Learner-facing explanations of errors the steps meet.

// ExplainBind says why rdma_bind_addr on addr failed, and what to do.
func ExplainBind(err error, addr netip.AddrPort) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return problem(err, text.Text{EN: fmt.Sprintf("port %d is already in use", addr.Port()), ZH: fmt.Sprintf("端口 %d 已被占用", addr.Port())},
			text.Text{EN: "stop the other server or pick another port with --port", ZH: "先停掉另一个 server，或用 --port 换一个端口"})
	case errors.Is(err, syscall.EADDRNOTAVAIL) && addr.Addr().IsUnspecified():
		// rdma_cm's answer when another listener holds the port on one
		// specific address (measured on rxe).
		return problem(err, text.Text{EN: fmt.Sprintf("port %d is already taken by an RDMA listener on one of this machine's addresses", addr.Port()),
			ZH: fmt.Sprintf("端口 %d 已被本机某个地址上的 RDMA listener 占用", addr.Port())},
			text.Text{EN: "stop the other server or pick another port with --port", ZH: "先停掉另一个 server，或用 --port 换一个端口"})
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return problem(err, text.Text{EN: fmt.Sprintf("%s is not an address of this machine", addr.Addr()), ZH: fmt.Sprintf("%s 不是本机的地址", addr.Addr())},
			text.Text{EN: "use an address shown by `ip addr`, or leave --bind out to listen on all", ZH: "用 `ip addr` 里列出的地址，或不加 --bind 监听所有地址"})
	}
	return err
}

// What event->status holds for the events unexpectedEvent explains.
const (
	// cmRejInvalidServiceID is IB_CM_REJ_INVALID_SERVICE_ID (enum
	// ib_cm_rej_reason, include/rdma/ib_cm.h): the REQ named a port no one
	// listens on. rdma_cm puts the REJ reason in the status of
	// RDMA_CM_EVENT_REJECTED (drivers/infiniband/core/cma.c, cma_ib_handler).
	cmRejInvalidServiceID = 8
	// cmRejConsumerDefined is IB_CM_REJ_CONSUMER_DEFINED (same enum): the
	// server's application called rdma_reject.
	cmRejConsumerDefined = 28
	// statusTimedOut and statusHostUnreach are the negative errnos rdma_cm
	// reports with RDMA_CM_EVENT_ADDR_ERROR when ARP/ND got no answer
	// (cma.c addr_handler passes on the status of rdma_resolve_ip,
	// drivers/infiniband/core/addr.c).
	statusTimedOut    = -int(syscall.ETIMEDOUT)
	statusHostUnreach = -int(syscall.EHOSTUNREACH)
)

func unexpectedEvent(ev verbs.CMEvent, want verbs.CMEventType, cfg Config) error {
	err := &CMEventError{Got: ev.Type, Want: want, Status: ev.Status}
	peer := cfg.Server.String()
	switch ev.Type {
	case verbs.EventRejected:
		if ev.Status == cmRejConsumerDefined {
			return rejectedBecause(err, ev.PrivateData)
		}
		// cmRejInvalidServiceID, or a REJ from a peer that is not rdma_cm.
		start := PeerCommand(cfg, netip.AddrPort{})
		return problem(err, text.Text{EN: "nothing is listening at " + peer, ZH: peer + " 上没有程序在监听"},
			text.Text{EN: "start `" + start.EN + "` there first, and check the address and --port", ZH: "先在那里启动 `" + start.ZH + "`，再核对地址和 --port"})
	case verbs.EventUnreachable, verbs.EventConnectError:
		return problem(err, text.Text{EN: peer + " did not answer as an RDMA server", ZH: peer + " 没有以 RDMA server 的身份应答"},
			text.Text{EN: "check the address and port, that rdmatour server runs there, and that both sides use the same backend (--backend)", ZH: "检查地址和端口、对端是否在运行 rdmatour server，以及两端是否用同一种 backend（--backend）"})
	case verbs.EventAddrError:
		if ev.Status == statusTimedOut || ev.Status == statusHostUnreach {
			return problem(err, text.Text{EN: "nothing at " + cfg.Server.Addr().String() + " answered address resolution (ARP/ND)", ZH: cfg.Server.Addr().String() + " 没有响应地址解析（ARP/ND）"},
				text.Text{EN: "check that the server is up and the address is right (`ping` it)", ZH: "确认 server 已开机、地址正确（先 `ping` 一下）"})
		}
		if ev.Status == -int(syscall.ENODEV) { // cma.c addr_handler: no device's GID table has the source address
			return problem(err, text.Text{EN: "no RDMA device has the address rdma_resolve_addr was given, or sits on the interface its route leaves by", ZH: "没有任何 RDMA 设备拥有 rdma_resolve_addr 收到的地址，也没有设备在通往它的路由所走的网口上"},
				text.Text{EN: "run `rdmatour doctor`; with Soft-RoCE: `rdma link add rxe0 type rxe netdev <nic>` on that interface", ZH: "运行 `rdmatour doctor`；若用 Soft-RoCE：在那个网口上执行 `rdma link add rxe0 type rxe netdev <网卡>`"})
		}
		return problem(err, text.Text{EN: "no RDMA device serves a route to " + peer, ZH: "没有任何 RDMA 设备能到达 " + peer},
			text.Text{EN: "run `rdmatour doctor`; with Soft-RoCE: `rdma link add rxe0 type rxe netdev <nic>`", ZH: "运行 `rdmatour doctor`；若用 Soft-RoCE：`rdma link add rxe0 type rxe netdev <网卡>`"})
	case verbs.EventRouteError:
		return problem(err, text.Text{EN: "no route to " + peer, ZH: "找不到到 " + peer + " 的路由"},
			text.Text{EN: "check `ip route` and the address", ZH: "检查 `ip route` 和地址"})
	case verbs.EventDisconnected, verbs.EventDeviceRemoval:
		return problem(err, text.Text{EN: "the peer went away", ZH: "对端已断开"},
			text.Text{EN: "start both sides again", ZH: "两端都重新启动"})
	}
	return problem(err, text.Text{EN: "unexpected CM event " + ev.Type.String(), ZH: "意外的 CM 事件 " + ev.Type.String()}, text.Text{})
}

func errnoText(err error) string {
	var ve *verbs.Error
	if errors.As(err, &ve) && ve.Errno != 0 {
		return verbs.ErrnoName(ve.Errno)
	}
	return "error"
}
