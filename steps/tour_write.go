package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
)

// The write tour (the default): the client RDMA-WRITEs its message into
// the server's buffer and tells it so by SEND, a doorbell WRITE or
// WRITE_WITH_IMM (--notify). It follows the seed program
// (testdata/seed/rdma-write-demo.c) call for call, so a learner can hold
// the C source next to the screen.

func serverTour() []Step {
	return []Step{
		eventChannelStep(Server),
		{ID: IDCreateID, Side: Server, Section: SectionCMID,
			Title: Text{"Create the listening CM id", "创建监听用的 CM id"},
			Call:  generic(createIDCall("listener")), run: stepCreateID},
		bindAddrStep(),
		listenStep(),
		{ID: IDGetConnectRequest, Side: Server, Section: SectionCMID, Waits: true, Milestones: MilestoneRequested, After: []StepID{IDConnect},
			Title: Text{"Wait for the client's connect request", "等待 client 的连接请求"},
			Call:  waitEventGeneric(verbs.EventConnectRequest), run: stepGetConnectRequest},
		allocPDStep(Server),
		createCQStep(Server),
		{ID: IDCreateQP, Side: Server, Section: SectionQP,
			Title: Text{"Create the RC queue pair", "创建 RC 队列对 QP"},
			Call:  generic(createQPCall(seedQPInitAttr(nil))), run: stepCreateQP},
		{ID: IDRegMRData, Side: Server, Section: SectionMRs,
			Title: Text{"Register the data buffer", "注册数据 buffer"},
			Call:  regMRGeneric("buf", BufSize, remoteAccess), run: stepRegData},
		{ID: IDRegMRDoorbell, Side: Server, Section: SectionMRs,
			Title: Text{"Register the doorbell flag", "注册 doorbell 标志位"},
			Call:  regMRGeneric("doorbell", DoorbellSize, remoteAccess), run: stepRegDoorbell},
		{ID: IDRegMRMsg, Side: Server, Section: SectionMRs,
			Title: Text{"Register the SEND/RECV buffers", "注册 SEND/RECV 消息 buffer"},
			Call:  regMsgGeneric(), run: stepRegMsg},
		{ID: IDPostRecv, Side: Server, Section: SectionQP,
			Title: Text{"Post a receive before accepting", "accept 之前先 post_recv"},
			Call:  postRecvGeneric(), run: stepPostRecv},
		{ID: IDAccept, Side: Server, Section: SectionQP,
			Title: Text{"Accept, handing out addr and rkey", "accept，并交出 addr 和 rkey"},
			Call:  generic(acceptCall(verbs.ConnParam{}, false)), run: stepAccept},
		{ID: IDGetEstablished, Side: Server, Section: SectionQP, Waits: true, Milestones: MilestoneHandshakeWait | MilestoneConnected, After: []StepID{IDGetEstablished},
			Title: Text{"Wait for ESTABLISHED", "等待 ESTABLISHED"},
			Call:  waitEventGeneric(verbs.EventEstablished), run: stepGetEstablished},
		{ID: IDWaitNotify, Side: Server, Section: SectionData, Waits: true, Milestones: MilestoneLanded | MilestoneNotified, After: []StepID{IDPollWrite, IDPollNotify},
			Title: Text{"Wait for the client's notification", "等待 client 的完成通知"},
			Call:  generic(waitPollCall()), run: stepWaitNotify},
		{ID: IDDisconnect, Side: Server, Section: SectionQP, Milestones: MilestoneDisconnected, After: []StepID{IDDisconnect},
			Title: Text{"Disconnect", "断开连接"},
			Call:  generic(disconnectCall()), run: stepDisconnect},
		{ID: IDTeardown, Side: Server, Section: SectionNone, Milestones: MilestoneDone,
			Title: Text{"Release everything, in reverse order", "按相反顺序释放所有资源"},
			Call:  teardownGeneric(false), run: stepTeardown},
	}
}

func clientTour(n Notify) []Step {
	tour := []Step{
		eventChannelStep(Client),
		{ID: IDCreateID, Side: Client, Section: SectionCMID,
			Title: Text{"Create the CM id", "创建 CM id"},
			Call:  generic(createIDCall("id")), run: stepCreateID},
		resolveAddrStep(),
		allocPDStep(Client),
		createCQStep(Client),
		{ID: IDCreateQP, Side: Client, Section: SectionQP,
			Title: Text{"Create the RC queue pair", "创建 RC 队列对 QP"},
			Call:  generic(createQPCall(seedQPInitAttr(nil))), run: stepCreateQP},
		{ID: IDRegMRData, Side: Client, Section: SectionMRs,
			Title: Text{"Register the data buffer", "注册数据 buffer"},
			Call:  regMRGeneric("buf", BufSize, remoteAccess), run: stepRegData},
		{ID: IDRegMRDoorbell, Side: Client, Section: SectionMRs,
			Title: Text{"Register the doorbell source", "注册 doorbell 源 buffer"},
			Call:  regMRGeneric("doorbell", DoorbellSize, remoteAccess), run: stepRegDoorbell},
		{ID: IDRegMRMsg, Side: Client, Section: SectionMRs,
			Title: Text{"Register the SEND/RECV buffers", "注册 SEND/RECV 消息 buffer"},
			Call:  regMsgGeneric(), run: stepRegMsg},
		resolveRouteStep(),
		{ID: IDConnect, Side: Client, Section: SectionCMID,
			Title: Text{"Send the connect request", "发出连接请求"},
			Call:  generic(connectCall(verbs.ConnParam{}, false)), run: stepConnect},
		{ID: IDGetEstablished, Side: Client, Section: SectionQP, Waits: true, Milestones: MilestoneHandshakeWait | MilestoneConnected, After: []StepID{IDAccept},
			Title: Text{"Wait for ESTABLISHED and read remote_info", "等待 ESTABLISHED，读出 remote_info"},
			Call:  waitEventGeneric(verbs.EventEstablished), run: stepGetEstablished},
	}
	if n == NotifyImm {
		tour = append(tour,
			Step{ID: IDPostWriteImm, Side: Client, Section: SectionData, After: []StepID{IDGetEstablished},
				Title: Text{"RDMA WRITE with immediate", "带立即数的 RDMA WRITE"},
				Call:  postSendGeneric(verbs.WRRDMAWriteWithImm, "buf", ""), run: stepPostWriteImm},
			Step{ID: IDPollWrite, Side: Client, Section: SectionCQ, Waits: true,
				Title: Text{"Poll the WRITE's completion", "轮询 WRITE 的完成"},
				Call:  generic(pollOne(verbs.WCRDMAWrite, "")), run: stepPollWrite},
		)
	} else {
		tour = append(tour,
			Step{ID: IDPostWrite, Side: Client, Section: SectionData, After: []StepID{IDGetEstablished},
				Title: Text{"RDMA WRITE into the server's buffer", "RDMA WRITE 写入 server 的 buffer"},
				Call:  postSendGeneric(verbs.WRRDMAWrite, "buf", ""), run: stepPostWrite},
			Step{ID: IDPollWrite, Side: Client, Section: SectionCQ, Waits: true,
				Title: Text{"Poll the WRITE's completion", "轮询 WRITE 的完成"},
				Call:  generic(pollOne(verbs.WCRDMAWrite, "")), run: stepPollWrite},
		)
		if n == NotifySend {
			tour = append(tour, Step{ID: IDPostSend, Side: Client, Section: SectionQP,
				Title: Text{"SEND \"RDMA_WRITE_DONE\"", "SEND \"RDMA_WRITE_DONE\" 通知"},
				Call:  postSendGeneric(verbs.WRSend, "send_buf", ""), run: stepPostSend})
		} else {
			tour = append(tour, Step{ID: IDPostDoorbell, Side: Client, Section: SectionDoorbell,
				Title: Text{"Ring the doorbell with a second WRITE", "再用一次 WRITE 敲 doorbell"},
				Call:  postSendGeneric(verbs.WRRDMAWrite, "doorbell", ", 8 B"), run: stepPostDoorbell})
		}
		tour = append(tour, Step{ID: IDPollNotify, Side: Client, Section: SectionCQ, Waits: true,
			Title: Text{"Poll the notification's completion", "轮询通知的完成"},
			Call:  generic(pollOne(verbs.WCRDMAWrite, "")), run: stepPollNotify})
	}
	return append(tour,
		Step{ID: IDDisconnect, Side: Client, Section: SectionQP, Milestones: MilestoneDisconnected, After: []StepID{IDWaitNotify},
			Title: Text{"Disconnect", "断开连接"},
			Call:  generic(disconnectCall()), run: stepDisconnect},
		Step{ID: IDTeardown, Side: Client, Section: SectionNone, Milestones: MilestoneDone, After: []StepID{IDDisconnect},
			Title: Text{"Release everything, in reverse order", "按相反顺序释放所有资源"},
			Call:  teardownGeneric(false), run: stepTeardown},
	)
}

// writeSummary is the write tour's result sentence: what the server's
// buffer holds and how it learned of it. The bytes are the client's:
// PeerBytes.String escapes them.
func writeSummary(r *Result) Text {
	how := map[Notify]Text{
		NotifySend:     {"a SEND completed its posted RECV", "一个 SEND 消耗了它 post 的 RECV，产生完成"},
		NotifyDoorbell: {"its CPU saw the doorbell flag turn 1", "它的 CPU 看到 doorbell 标志位变成了 1"},
		NotifyImm:      {"RDMA_WRITE_WITH_IMM raised a RECV completion", "RDMA_WRITE_WITH_IMM 产生了一个 RECV 完成"},
	}[r.Via]
	msg, notice := r.Message.String(), r.Notice.String()
	return Text{fmt.Sprintf("The server's buffer holds \"%s\". It learned of it because %s (%s).", msg, how.EN, notice),
		fmt.Sprintf("server 的 buffer 里现在是 \"%s\"。它之所以知道，是因为%s（%s）。", msg, how.ZH, notice)}
}

func writeTourDef() TourDef {
	return TourDef{Kind: TourWrite, Name: "write", Notifies: true, DataAccess: remoteAccess,
		build: func(role Role, n Notify) []Step {
			if role == Server {
				return serverTour()
			}
			return clientTour(n)
		}}
}
