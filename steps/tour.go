package steps

import (
	"github.com/rdmatour/rdmatour/verbs"
)

// The tours follow the seed program (shared/seed/rdma-write-demo.md) call
// for call, so a learner can hold the C source next to the screen.

func serverTour() []Step {
	return []Step{
		eventChannelStep(Server),
		{ID: "create-id", Side: Server, Section: SectionCMID,
			Title: Text{"Create the listening CM id", "创建监听用的 CM id"},
			Call:  generic(createIDCall("listener")), run: stepCreateID},
		bindAddrStep(),
		listenStep(),
		{ID: "get-connect-request", Side: Server, Section: SectionCMID, Waits: true, After: []string{"connect"},
			Title: Text{"Wait for the client's connect request", "等待 client 的连接请求"},
			Call:  waitEventGeneric(verbs.EventConnectRequest), run: stepGetConnectRequest},
		allocPDStep(Server),
		createCQStep(Server),
		{ID: "create-qp", Side: Server, Section: SectionQP,
			Title: Text{"Create the RC queue pair", "创建 RC 队列对 QP"},
			Call:  generic(createQPCall(seedQPInitAttr(nil))), run: stepCreateQP},
		{ID: "reg-mr-data", Side: Server, Section: SectionMRs,
			Title: Text{"Register the data buffer", "注册数据 buffer"},
			Call:  regMRGeneric("buf", BufSize, remoteAccess), run: stepRegData},
		{ID: "reg-mr-doorbell", Side: Server, Section: SectionMRs,
			Title: Text{"Register the doorbell flag", "注册 doorbell 标志位"},
			Call:  regMRGeneric("doorbell", DoorbellSize, remoteAccess), run: stepRegDoorbell},
		{ID: "reg-mr-msg", Side: Server, Section: SectionMRs,
			Title: Text{"Register the SEND/RECV buffers", "注册 SEND/RECV 消息 buffer"},
			Call:  regMsgGeneric(), run: stepRegMsg},
		{ID: "post-recv", Side: Server, Section: SectionQP,
			Title: Text{"Post a receive before accepting", "accept 之前先 post_recv"},
			Call:  postRecvGeneric(), run: stepPostRecv},
		{ID: "accept", Side: Server, Section: SectionQP,
			Title: Text{"Accept, handing out addr and rkey", "accept，并交出 addr 和 rkey"},
			Call:  generic(acceptCall(verbs.ConnParam{}, false)), run: stepAccept},
		{ID: "get-established", Side: Server, Section: SectionQP, Waits: true, After: []string{"get-established"},
			Title: Text{"Wait for ESTABLISHED", "等待 ESTABLISHED"},
			Call:  waitEventGeneric(verbs.EventEstablished), run: stepGetEstablished},
		{ID: "wait-notify", Side: Server, Section: SectionData, Waits: true, After: []string{"poll-write", "poll-notify"},
			Title: Text{"Wait for the client's notification", "等待 client 的完成通知"},
			Call:  generic(waitPollCall()), run: stepWaitNotify},
		{ID: "disconnect", Side: Server, Section: SectionQP, After: []string{"disconnect"},
			Title: Text{"Disconnect", "断开连接"},
			Call:  generic(disconnectCall()), run: stepDisconnect},
		{ID: "teardown", Side: Server, Section: SectionNone,
			Title: Text{"Release everything, in reverse order", "按相反顺序释放所有资源"},
			Call:  teardownGeneric(false), run: stepTeardown},
	}
}

func clientTour(n Notify) []Step {
	tour := []Step{
		eventChannelStep(Client),
		{ID: "create-id", Side: Client, Section: SectionCMID,
			Title: Text{"Create the CM id", "创建 CM id"},
			Call:  generic(createIDCall("id")), run: stepCreateID},
		resolveAddrStep(),
		allocPDStep(Client),
		createCQStep(Client),
		{ID: "create-qp", Side: Client, Section: SectionQP,
			Title: Text{"Create the RC queue pair", "创建 RC 队列对 QP"},
			Call:  generic(createQPCall(seedQPInitAttr(nil))), run: stepCreateQP},
		{ID: "reg-mr-data", Side: Client, Section: SectionMRs,
			Title: Text{"Register the data buffer", "注册数据 buffer"},
			Call:  regMRGeneric("buf", BufSize, remoteAccess), run: stepRegData},
		{ID: "reg-mr-doorbell", Side: Client, Section: SectionMRs,
			Title: Text{"Register the doorbell source", "注册 doorbell 源 buffer"},
			Call:  regMRGeneric("doorbell", DoorbellSize, remoteAccess), run: stepRegDoorbell},
		{ID: "reg-mr-msg", Side: Client, Section: SectionMRs,
			Title: Text{"Register the SEND/RECV buffers", "注册 SEND/RECV 消息 buffer"},
			Call:  regMsgGeneric(), run: stepRegMsg},
		resolveRouteStep(),
		{ID: "connect", Side: Client, Section: SectionCMID,
			Title: Text{"Send the connect request", "发出连接请求"},
			Call:  generic(connectCall(verbs.ConnParam{}, false)), run: stepConnect},
		{ID: "get-established", Side: Client, Section: SectionQP, Waits: true, After: []string{"accept"},
			Title: Text{"Wait for ESTABLISHED and read remote_info", "等待 ESTABLISHED，读出 remote_info"},
			Call:  waitEventGeneric(verbs.EventEstablished), run: stepGetEstablished},
	}
	if n == NotifyImm {
		tour = append(tour,
			Step{ID: "post-write-imm", Side: Client, Section: SectionData, After: []string{"get-established"},
				Title: Text{"RDMA WRITE with immediate", "带立即数的 RDMA WRITE"},
				Call:  postSendGeneric(verbs.WRRDMAWriteWithImm, "buf", ""), run: stepPostWriteImm},
			Step{ID: "poll-write", Side: Client, Section: SectionCQ, Waits: true,
				Title: Text{"Poll the WRITE's completion", "轮询 WRITE 的完成"},
				Call:  generic(pollOne(verbs.WCRDMAWrite, "")), run: stepPollWrite},
		)
	} else {
		tour = append(tour,
			Step{ID: "post-write", Side: Client, Section: SectionData, After: []string{"get-established"},
				Title: Text{"RDMA WRITE into the server's buffer", "RDMA WRITE 写入 server 的 buffer"},
				Call:  postSendGeneric(verbs.WRRDMAWrite, "buf", ""), run: stepPostWrite},
			Step{ID: "poll-write", Side: Client, Section: SectionCQ, Waits: true,
				Title: Text{"Poll the WRITE's completion", "轮询 WRITE 的完成"},
				Call:  generic(pollOne(verbs.WCRDMAWrite, "")), run: stepPollWrite},
		)
		if n == NotifySend {
			tour = append(tour, Step{ID: "post-send", Side: Client, Section: SectionQP,
				Title: Text{"SEND \"RDMA_WRITE_DONE\"", "SEND \"RDMA_WRITE_DONE\" 通知"},
				Call:  postSendGeneric(verbs.WRSend, "send_buf", ""), run: stepPostSend})
		} else {
			tour = append(tour, Step{ID: "post-doorbell", Side: Client, Section: SectionDoorbell,
				Title: Text{"Ring the doorbell with a second WRITE", "再用一次 WRITE 敲 doorbell"},
				Call:  postSendGeneric(verbs.WRRDMAWrite, "doorbell", ", 8 B"), run: stepPostDoorbell})
		}
		tour = append(tour, Step{ID: "poll-notify", Side: Client, Section: SectionCQ, Waits: true,
			Title: Text{"Poll the notification's completion", "轮询通知的完成"},
			Call:  generic(pollOne(verbs.WCRDMAWrite, "")), run: stepPollNotify})
	}
	return append(tour,
		Step{ID: "disconnect", Side: Client, Section: SectionQP, After: []string{"wait-notify"},
			Title: Text{"Disconnect", "断开连接"},
			Call:  generic(disconnectCall()), run: stepDisconnect},
		Step{ID: "teardown", Side: Client, Section: SectionNone, After: []string{"disconnect"},
			Title: Text{"Release everything, in reverse order", "按相反顺序释放所有资源"},
			Call:  teardownGeneric(false), run: stepTeardown},
	)
}

// AllStepIDs lists every step ID of every tour, once each: the set of pages
// docs/en and docs/zh must have.
func AllStepIDs() []string {
	seen := map[string]bool{}
	var ids []string
	add := func(tour []Step) {
		for _, st := range tour {
			if !seen[st.ID] {
				seen[st.ID] = true
				ids = append(ids, st.ID)
			}
		}
	}
	add(serverTour())
	for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
		add(clientTour(n))
	}
	for _, t := range manualTours() {
		add(t)
	}
	add(readTour(Server, serverTour()))
	add(readTour(Client, clientTour(NotifySend)))
	add(atomicTour(Server, serverTour()))
	add(atomicTour(Client, clientTour(NotifySend)))
	add(udServerTour())
	add(udClientTour())
	for _, l := range Lessons() {
		for _, role := range []Role{Server, Client} {
			cfg := Config{Role: role, Notify: l.Notify, Tour: l.Tour}
			tour := baseTour(role, l.Notify, l.Tour)
			add(l.apply(cfg, tour))
			cfg.RNRRetry = 7
			add(l.apply(cfg, tour))
		}
	}
	return ids
}
