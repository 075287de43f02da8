package steps

import (
	"fmt"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The ud tour (--tour ud): the same two programs over an unreliable
// datagram QP. rdma_cm's UDP port space hands the client the server QP's
// number and Q_Key and an address vector; then the client SENDs
// datagrams: one before the server has posted a RECV (it is dropped, and
// nobody is told), one after. Steps that are the RC tour's own calls
// keep their IDs and pages.

// UD tour constants: the receive buffer holds the 40-byte GRH and one
// path-MTU datagram.
const (
	UDMTU        = 1024 // rxe's (and sim0's) active MTU on a 1500-byte link
	UDRecvSize   = verbs.GRHLen + UDMTU
	UDSendSize   = UDMTU
	WRIDUDEarly  = 600 // the datagram sent before the server's RECV
	UDEarlyText  = "sent before the server posted its RECV"
	DefaultUDMsg = "hello from rdmatour client via UD SEND"
)

func udServerTour() []Step {
	return []Step{
		eventChannelStep(Server),
		{ID: IDUDCreateID, Side: Server, Section: SectionCMID,
			Title: text.Text{EN: "Create a listening id in the UDP port space", ZH: "在 UDP 端口空间创建监听 id"},
			Call:  generic(createIDUDCall("listener")), run: stepUDCreateID},
		bindAddrStep(),
		listenStep(),
		{ID: IDUDGetRequest, Side: Server, Section: SectionCMID, Waits: true, Milestones: MilestoneRequested, After: []StepID{IDUDConnect},
			Title: text.Text{EN: "Wait for the client's SIDR request", ZH: "等待 client 的 SIDR 请求"},
			Call:  waitEventGeneric(verbs.EventConnectRequest), run: stepUDGetRequest},
		allocPDStep(Server),
		createCQStep(Server),
		{ID: IDUDCreateQP, Side: Server, Section: SectionQP,
			Title: text.Text{EN: "Create the UD queue pair", ZH: "创建 UD 队列对 QP"},
			Call:  generic(createQPUDCall(udQPInitAttr(nil))), run: stepUDCreateQP},
		{ID: IDUDRegMR, Side: Server, Section: SectionMRs,
			Title: text.Text{EN: "Register the receive and send buffers", ZH: "注册收发 buffer"},
			Call:  udRegGeneric(), run: stepUDRegMR},
		{ID: IDUDAccept, Side: Server, Section: SectionQP,
			Title: text.Text{EN: "Accept: send the QP number and Q_Key", ZH: "accept：交出 QP 号和 Q_Key"},
			Call:  generic(udAcceptCall()), run: stepUDAccept},
		{ID: IDUDPostRecv, Side: Server, Section: SectionQP, Waits: true, After: []StepID{IDUDSendEarly},
			Title: text.Text{EN: "Post a receive (room for the GRH)", ZH: "post 一个接收（给 GRH 留位置）"},
			Call:  generic(udPostRecvCall(verbs.RecvWR{WRID: WRIDRecv})), run: stepUDPostRecv},
		{ID: IDUDPollRecv, Side: Server, Section: SectionData, Waits: true, Milestones: MilestoneLanded, After: []StepID{IDUDSend},
			Title: text.Text{EN: "Poll for a datagram", ZH: "轮询收到的数据报"},
			Call:  generic(pollOne(verbs.WCRecv, "UD receive")), run: stepUDPollRecv},
		{ID: IDUDReply, Side: Server, Section: SectionData,
			Title: text.Text{EN: "Answer the client, to the address its datagram brought", ZH: "回答 client：按它的数据报带来的地址发回去"},
			Call:  generic(createAHFromWCCall(), udSendCallTo(verbs.SendWR{Opcode: verbs.WRSend}, c.Expr{}, udToSender), udPollSend(udToSender.what)), run: stepUDReply},
		{ID: IDUDTeardown, Side: Server, Section: SectionNone, Milestones: MilestoneDone,
			Title: text.Text{EN: "Release everything, in reverse order", ZH: "按相反顺序释放所有资源"},
			Call:  generic(udTeardownCalls()...), run: stepUDTeardown},
	}
}

func udClientTour() []Step {
	return []Step{
		eventChannelStep(Client),
		{ID: IDUDCreateID, Side: Client, Section: SectionCMID,
			Title: text.Text{EN: "Create an id in the UDP port space", ZH: "在 UDP 端口空间创建 id"},
			Call:  generic(createIDUDCall("id")), run: stepUDCreateID},
		resolveAddrStep(),
		allocPDStep(Client),
		createCQStep(Client),
		{ID: IDUDCreateQP, Side: Client, Section: SectionQP,
			Title: text.Text{EN: "Create the UD queue pair", ZH: "创建 UD 队列对 QP"},
			Call:  generic(createQPUDCall(udQPInitAttr(nil))), run: stepUDCreateQP},
		{ID: IDUDRegMR, Side: Client, Section: SectionMRs,
			Title: text.Text{EN: "Register the receive and send buffers", ZH: "注册收发 buffer"},
			Call:  udRegGeneric(), run: stepUDRegMR},
		resolveRouteStep(),
		{ID: IDUDConnect, Side: Client, Section: SectionCMID,
			Title: text.Text{EN: "Ask for the server's QP (SIDR request)", ZH: "向 server 要它的 QP（SIDR 请求）"},
			Call:  generic(udConnectCall()), run: stepUDConnect},
		{ID: IDUDGetEstablished, Side: Client, Section: SectionQP, Waits: true, Milestones: MilestoneConnected, After: []StepID{IDUDAccept},
			Title: text.Text{EN: "Wait for ESTABLISHED: QP number, Q_Key, address", ZH: "等待 ESTABLISHED：QP 号、Q_Key、地址"},
			Call:  waitEventGeneric(verbs.EventEstablished), run: stepUDGetEstablished},
		{ID: IDUDCreateAH, Side: Client, Section: SectionQP,
			Title: text.Text{EN: "Create an address handle to the server", ZH: "创建指向 server 的地址句柄"},
			Call:  generic(createAHCall()), run: stepUDCreateAH},
		{ID: IDUDSendEarly, Side: Client, Section: SectionData, After: []StepID{IDUDAccept},
			Title: text.Text{EN: "Post a RECV for the answer, then SEND early", ZH: "为回答 post RECV，然后提前 SEND"},
			Call:  generic(udPostRecvCall(verbs.RecvWR{WRID: WRIDRecv}), udSendCallTo(verbs.SendWR{Opcode: verbs.WRSend}, c.Expr{}, udToServerEarly), udPollSend(udToServerEarly.what)), run: stepUDSendEarly},
		{ID: IDUDSend, Side: Client, Section: SectionData, After: []StepID{IDUDPostRecv},
			Title: text.Text{EN: "SEND the message", ZH: "SEND 消息"},
			Call:  generic(udSendCall(verbs.SendWR{Opcode: verbs.WRSend}, c.Expr{}), udPollSend(udToServer.what)), run: stepUDSend},
		{ID: IDUDAwaitReply, Side: Client, Section: SectionData, Waits: true, After: []StepID{IDUDReply},
			Title: text.Text{EN: "Wait for the server's answer; send again if none comes", ZH: "等 server 的回答；没等到就重发"},
			Call:  generic(pollOne(verbs.WCRecv, "UD reply").Hinted("the answer; none within 1 s: ibv_post_send the message again")), run: stepUDAwaitReply},
		{ID: IDUDTeardown, Side: Client, Section: SectionNone, Milestones: MilestoneDone, After: []StepID{IDUDReply},
			Title: text.Text{EN: "Release everything, in reverse order", ZH: "按相反顺序释放所有资源"},
			Call:  generic(udTeardownCalls()...), run: stepUDTeardown},
	}
}

// udTour is the ud tour of role.
func udTour(role Role) []Step {
	if role == Server {
		return udServerTour()
	}
	return udClientTour()
}

func udTourDef() TourDef {
	return TourDef{Kind: TourUD, Name: "ud", SendsMessage: true, DataAccess: verbs.AccessLocalWrite,
		build:    func(role Role, _ Notify, _ Track) []Step { return udTour(role) },
		validate: validateUD,
		// siw_create_qp: "only RC QP's supported", EOPNOTSUPP (TestSiwDeviceAndRefusals).
		noIWARP: text.Text{EN: "iWARP has no datagram service: it runs over TCP connections, so there is no UD QP (siw's ibv_create_qp answers EOPNOTSUPP for IBV_QPT_UD) and no SIDR",
			ZH: "iWARP 没有数据报服务：它跑在 TCP 连接上，所以没有 UD QP（siw 的 ibv_create_qp 对 IBV_QPT_UD 返回 EOPNOTSUPP），也没有 SIDR"},
		noWorkshop: text.Text{EN: "--workshop --tour ud is not supported: a workshop room serves RC connections (RDMA_PS_TCP) and the ud tour's datagrams use RDMA_PS_UDP; run the ud tour as one server and one client, or choose --tour write, read or atomic for the room",
			ZH: "不支持 --workshop --tour ud：workshop 教室服务的是 RC 连接（RDMA_PS_TCP），而 ud 教程的数据报走 RDMA_PS_UDP；ud 教程请用一个 server 对一个 client 来跑，或者给教室选 --tour write、read 或 atomic"},
		tools: udTools}
}

// udTools: perftest's SEND over UD with rdma_cm (RDMA_PS_UDP, as the
// tour), and ibv_ud_pingpong, which exchanges its QPN over TCP.
func udTools(a ToolArgs) []ToolCommand {
	return []ToolCommand{
		perftest("ib_send_bw", a, text.Text{EN: "UD SEND bandwidth, the address found by rdma_cm", ZH: "UD SEND 带宽，地址由 rdma_cm 解析"}, "-c", "UD", "-s", fmt.Sprint(a.Size)),
		pingpong("ibv_ud_pingpong", a, text.Text{EN: "one UD SEND each way, the QPN exchanged over TCP", ZH: "双方各发一个 UD SEND，QPN 通过 TCP 交换"}),
	}
}
