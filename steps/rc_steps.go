package steps

import (
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The RC tours (write, read, atomic) share the connection around their
// data steps: the same calls in the same order up to ESTABLISHED, and the
// same disconnect and teardown after. Each tour's file builds its table
// from these and adds its own steps (rcTour says where); none rewrites
// another tour's table. Where the QP is made, connected and let go, the
// skeleton takes the track's steps (rc_track.go).

// rcTour is what an RC tour puts into the shared skeleton.
type rcTour struct {
	// kind is the tour's catalogue row: the data buffer and doorbell are
	// registered with the access it declares (TourDef.dataAccess), shown
	// before the step runs and used when it does.
	kind TourKind
	// afterPD and afterData are the tour's own steps right after alloc-pd
	// and reg-mr-data, for role.
	afterPD, afterData func(role Role) []Step
	// data is the tour's data exchange, after ESTABLISHED, for role.
	data func(role Role) []Step
	// clientHangsUpAfter is the server step the client's disconnect waits
	// for.
	clientHangsUpAfter StepID
}

// steps is the tour of role on track tr.
func (t rcTour) steps(role Role, tr rcTrack) []Step {
	tour := rcSetup(role, t, tr)
	tour = append(tour, t.data(role)...)
	return append(tour, rcEnd(role, t.clientHangsUpAfter, tr)...)
}

// rcSetup is role's side up to ESTABLISHED on track tr.
func rcSetup(role Role, t rcTour, tr rcTrack) []Step {
	own := func(f func(Role) []Step) []Step {
		if f == nil {
			return nil
		}
		return f(role)
	}
	tour := []Step{eventChannelStep(role), createIDStep(role)}
	if role == Server {
		tour = append(tour, bindAddrStep(), listenStep(), getConnectRequestStep(tr.peer))
	} else {
		tour = append(tour, resolveAddrStep())
	}
	tour = append(tour, allocPDStep(role))
	tour = append(tour, own(t.afterPD)...)
	def, _ := TourOf(t.kind)
	tour = append(tour, createCQStep(role))
	tour = append(tour, tr.createQP(role)...)
	tour = append(tour, regDataStep(role, def.dataAccess(role)))
	tour = append(tour, own(t.afterData)...)
	tour = append(tour, regDoorbellStep(role, def.doorbellAccess(role)), regMsgStep(role))
	if role == Server {
		tour = append(tour, postRecvStep())
	} else {
		tour = append(tour, resolveRouteStep())
	}
	return append(tour, tr.handshake(role)...)
}

// rcEnd is role's disconnect and teardown on track tr: the server hangs
// up after the client's disconnect, the client after the server's step
// hangUpAfter, and the client tears down after the server hung up.
func rcEnd(role Role, hangUpAfter StepID, tr rcTrack) []Step {
	disconnect := tr.hangUp(role)
	disconnect.After = []StepID{tr.peer.hangUp}
	teardown := Step{ID: IDTeardown, Side: role, Section: SectionNone, Milestones: MilestoneDone,
		Title: text.Text{EN: "Release everything, in reverse order", ZH: "按相反顺序释放所有资源"},
		Call:  teardownGeneric(tr.ownsQP), run: stepTeardown}
	if role == Client {
		disconnect.After = []StepID{hangUpAfter}
		teardown.After = []StepID{tr.peer.hangUp}
	}
	return []Step{disconnect, teardown}
}

// disconnectStep is role's rdma_disconnect on the cm track (librdmacm
// moves its QP to ERR).
func disconnectStep(role Role) Step {
	return Step{ID: IDDisconnect, Side: role, Section: SectionQP, Milestones: MilestoneDisconnected,
		Title: text.Text{EN: "Disconnect", ZH: "断开连接"},
		Call:  generic(disconnectCall()), run: stepDisconnect}
}

func createIDStep(role Role) Step {
	st := Step{ID: IDCreateID, Side: role, Section: SectionCMID,
		Title: text.Text{EN: "Create the CM id", ZH: "创建 CM id"},
		Call:  generic(createIDCall("id")), run: stepCreateID}
	if role == Server {
		st.Title, st.Call = text.Text{EN: "Create the listening CM id", ZH: "创建监听用的 CM id"}, generic(createIDCall("listener"))
	}
	return st
}

// getConnectRequestStep waits for the client's REQ, sent by its step
// peer.req.
func getConnectRequestStep(peer cmSenders) Step {
	return Step{ID: IDGetConnectRequest, Side: Server, Section: SectionCMID, Waits: true, Milestones: MilestoneRequested, After: []StepID{peer.req},
		Title: text.Text{EN: "Wait for the client's connect request", ZH: "等待 client 的连接请求"},
		Call:  waitEventGeneric(verbs.EventConnectRequest), run: stepGetConnectRequest}
}

func createQPStep(role Role) Step {
	return Step{ID: IDCreateQP, Side: role, Section: SectionQP,
		Title: text.Text{EN: "Create the RC queue pair", ZH: "创建 RC 队列对 QP"},
		Call:  generic(createQPCall(seedQPInitAttr(nil), nil)), run: stepCreateQP}
}

func regDataStep(role Role, access verbs.Access) Step {
	return Step{ID: IDRegMRData, Side: role, Section: SectionMRs,
		Title: text.Text{EN: "Register the data buffer", ZH: "注册数据 buffer"},
		Call:  regMRGeneric("buf", BufSize, access), run: stepRegData}
}

func regDoorbellStep(role Role, access verbs.Access) Step {
	title := text.Text{EN: "Register the doorbell source", ZH: "注册 doorbell 源 buffer"}
	if role == Server {
		title = text.Text{EN: "Register the doorbell flag", ZH: "注册 doorbell 标志位"}
	}
	return Step{ID: IDRegMRDoorbell, Side: role, Section: SectionMRs, Title: title,
		Call: regMRGeneric("doorbell", DoorbellSize, access), run: stepRegDoorbell}
}

func regMsgStep(role Role) Step {
	return Step{ID: IDRegMRMsg, Side: role, Section: SectionMRs,
		Title: text.Text{EN: "Register the SEND/RECV buffers", ZH: "注册 SEND/RECV 消息 buffer"},
		Call:  regMsgGeneric(), run: stepRegMsg}
}

func postRecvStep() Step {
	return Step{ID: IDPostRecv, Side: Server, Section: SectionQP, srqShared: true,
		Title: text.Text{EN: "Post a receive before accepting", ZH: "accept 之前先 post_recv"},
		Call:  postRecvGeneric(), run: stepPostRecv}
}

func acceptStep() Step {
	return Step{ID: IDAccept, Side: Server, Section: SectionQP,
		Title: text.Text{EN: "Accept, handing out addr and rkey", ZH: "accept，并交出 addr 和 rkey"},
		Call:  generic(acceptCall(verbs.ConnParam{}, false, nil)), run: stepAccept}
}

func connectStep() Step {
	return Step{ID: IDConnect, Side: Client, Section: SectionCMID,
		Title: text.Text{EN: "Send the connect request", ZH: "发出连接请求"},
		Call:  generic(connectCall(verbs.ConnParam{}, false, nil)), run: stepConnect}
}

// getEstablishedStep waits inside the handshake: the server for the
// client's RTU (peer.rtu), the client for the REP (peer.rep).
func getEstablishedStep(role Role, peer cmSenders) Step {
	st := Step{ID: IDGetEstablished, Side: role, Section: SectionQP, Waits: true, Milestones: MilestoneHandshakeWait | MilestoneConnected,
		After: []StepID{peer.rep},
		Title: text.Text{EN: "Wait for ESTABLISHED and read remote_info", ZH: "等待 ESTABLISHED，读出 remote_info"},
		Call:  waitEventGeneric(verbs.EventEstablished), run: stepGetEstablished}
	if role == Server {
		st.After, st.Title = []StepID{peer.rtu}, text.Text{EN: "Wait for ESTABLISHED", ZH: "等待 ESTABLISHED"}
	}
	return st
}
