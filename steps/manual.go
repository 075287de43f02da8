package steps

// The manual QP track (--track manual): the QP is made with ibv_create_qp
// and the application drives it RESET -> INIT -> RTR -> RTS itself, one
// ibv_modify_qp per keypress, with the attributes rdma_init_qp_attr
// returns. rdma_cm still carries the connection (REQ/REP/RTU and the
// private data); it just does not own the QP. The track is a table per
// side (manualTrack) that the RC skeleton puts where the QP is made,
// connected and let go; the write tour is the one that runs on it
// (TourDef.Notifies, validateTour).

import (
	"context"
	"fmt"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// manualTrack: the application creates the QP in RESET and moves it
// itself, one transition per step, and names it in the CM messages.
func manualTrack() rcTrack {
	peer := cmSenders{req: IDConnectManual, rep: IDAcceptManual, rtu: IDEstablish, hangUp: IDDisconnectManual}
	return rcTrack{track: TrackManual, peer: peer, ownsQP: true,
		createQP: func(role Role) []Step { return []Step{createQPManualStep(role), modifyStep(role, verbs.QPSInit)} },
		handshake: func(role Role) []Step {
			if role == Server {
				return manualServerHandshake(peer)
			}
			return manualClientHandshake(peer)
		},
		hangUp: disconnectManualStep}
}

// manualServerHandshake: the server has the client's QPN and PSN from the
// REQ, so it moves its QP to RTS before it accepts.
func manualServerHandshake(peer cmSenders) []Step {
	accept := Step{ID: IDAcceptManual, Side: Server, Section: SectionQP,
		Title: text.Text{EN: "Accept, naming our own QP", ZH: "accept，并告诉对方我们自己的 QP"},
		Call:  generic(acceptCall(verbs.ConnParam{}, true, nil)), run: stepAcceptManual}
	return []Step{modifyStep(Server, verbs.QPSRTR), modifyStep(Server, verbs.QPSRTS), accept, getEstablishedStep(Server, peer)}
}

// manualClientHandshake: the client learns the server's QPN and PSN from
// the REP, moves its QP to RTS, and only then sends the RTU itself.
func manualClientHandshake(peer cmSenders) []Step {
	return []Step{
		{ID: IDConnectManual, Side: Client, Section: SectionCMID,
			Title: text.Text{EN: "Send the connect request, naming our QP", ZH: "发出连接请求，并告诉对方我们的 QP"},
			Call:  generic(connectCall(verbs.ConnParam{}, true, nil)), run: stepConnectManual},
		{ID: IDGetConnectResponse, Side: Client, Section: SectionRemote, Waits: true, Milestones: MilestoneHandshakeWait, After: []StepID{peer.rep},
			Title: text.Text{EN: "Wait for CONNECT_RESPONSE and read remote_info", ZH: "等待 CONNECT_RESPONSE，读出 remote_info"},
			Call:  waitEventGeneric(verbs.EventConnectResponse), run: stepGetConnectResponse},
		modifyStep(Client, verbs.QPSRTR), modifyStep(Client, verbs.QPSRTS),
		{ID: IDEstablish, Side: Client, Section: SectionCMID, Milestones: MilestoneConnected,
			Title: text.Text{EN: "Complete the connection: send the RTU", ZH: "完成建连：发出 RTU"},
			Call:  generic(establishCall()), run: stepEstablish},
	}
}

// disconnectManualStep: rdma_disconnect leaves a QP the CM does not own
// alone, so the step moves it to ERR too.
func disconnectManualStep(role Role) Step {
	return Step{ID: IDDisconnectManual, Side: role, Section: SectionQP, Milestones: MilestoneDisconnected,
		Title: text.Text{EN: "Disconnect, and move our QP to ERR", ZH: "断开连接，并把我们的 QP 置为 ERR"},
		Call:  generic(disconnectCall(), toErrCall()), run: stepDisconnectManual}
}

func createQPManualStep(role Role) Step {
	return Step{ID: IDCreateQPManual, Side: role, Section: SectionQP,
		Title: text.Text{EN: "Create the QP yourself (it starts in RESET)", ZH: "自己创建 QP（初始状态 RESET）"},
		Call:  generic(createQPManualCall(seedQPInitAttr(nil), nil)), run: stepCreateQPManual}
}

func modifyStep(role Role, st verbs.QPState) Step {
	id := modifyStepID(st)
	title := map[verbs.QPState]text.Text{
		verbs.QPSInit: {EN: "QP: RESET → INIT", ZH: "QP：RESET → INIT"},
		verbs.QPSRTR:  {EN: "QP: INIT → RTR (ready to receive)", ZH: "QP：INIT → RTR（可以接收）"},
		verbs.QPSRTS:  {EN: "QP: RTR → RTS (ready to send)", ZH: "QP：RTR → RTS（可以发送）"},
	}[st]
	return Step{ID: id, Side: role, Section: SectionQP, Title: title,
		Call: modifyGeneric(st),
		run:  func(ctx context.Context, s *Session) (Outcome, error) { return s.modifyQP(st) }}
}

func stepCreateQPManual(_ context.Context, s *Session) (Outcome, error) {
	attr, y := s.editedQPInitAttr(IDCreateQPManual)
	call := createQPManualCall(attr, y)
	qp, err := s.dev.CreateQP(s.pd, attr)
	if err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.set(func() { s.qp, s.manualQP = qp, true })
	state := s.recordQPState()
	out := Outcome{
		Results: []KV{result(resQpNum, fmt.Sprintf("0x%x", qp.Num())), result(resStateIbvQueryQp, state), KV{Name: resIdQp, Value: valQPNotCMs}},
		Note: text.Text{EN: "A bare QP in RESET: it can neither receive nor send. Three ibv_modify_qp calls follow, each with the attributes its transition needs.",
			ZH: "一个光秃秃的 QP，处于 RESET：既不能收也不能发。接下来三次 ibv_modify_qp，每次带上这一步迁移需要的属性。"}}
	err = s.impairWire(qp, &out)
	return withC(out, call.Returned(fmt.Sprintf("{ .qp_num = 0x%x }", qp.Num()))), err
}

// attrKVs lists the attributes mask selects, as C field = value.
func attrKVs(a verbs.QPAttr, m verbs.QPAttrMask) []KV {
	var kvs []KV
	add := func(bit verbs.QPAttrMask, name, val string) {
		if m&bit != 0 {
			kvs = append(kvs, result(attrName(name), val))
		}
	}
	add(verbs.QPAttrState, "qp_state", a.State.CName())
	add(verbs.QPAttrAccessFlags, "qp_access_flags", a.AccessFlags.String())
	add(verbs.QPAttrPKeyIndex, "pkey_index", fmt.Sprint(a.PKeyIndex))
	add(verbs.QPAttrPort, "port_num", fmt.Sprint(a.PortNum))
	add(verbs.QPAttrAV, "ah_attr", a.AH.String())
	add(verbs.QPAttrPathMTU, "path_mtu", fmt.Sprintf("%s (%d)", verbs.MTUName(a.PathMTU), verbs.MTUEnum(a.PathMTU)))
	add(verbs.QPAttrTimeout, "timeout", fmt.Sprintf("%d (4.096 µs × 2^%d)", a.Timeout, a.Timeout))
	add(verbs.QPAttrRetryCnt, "retry_cnt", fmt.Sprint(a.RetryCnt))
	add(verbs.QPAttrRNRRetry, "rnr_retry", fmt.Sprint(a.RNRRetry))
	add(verbs.QPAttrRQPSN, "rq_psn", fmt.Sprintf("0x%06x", a.RQPSN))
	add(verbs.QPAttrMaxQPRdAtomic, "max_rd_atomic", fmt.Sprint(a.MaxRdAtomic))
	add(verbs.QPAttrMinRNRTimer, "min_rnr_timer", fmt.Sprint(a.MinRNRTimer))
	add(verbs.QPAttrSQPSN, "sq_psn", fmt.Sprintf("0x%06x", a.SQPSN))
	add(verbs.QPAttrMaxDestRdAtomic, "max_dest_rd_atomic", fmt.Sprint(a.MaxDestRdAtom))
	add(verbs.QPAttrDestQPN, "dest_qp_num", fmt.Sprintf("0x%x", a.DestQPNum))
	return kvs
}

// attrName is a QP attribute's result name: the C field, except timeout,
// which the screen has always said in words.
func attrName(field string) text.Text {
	if field == "timeout" {
		return resTimeout
	}
	return cname(field)
}

var modifyNotes = map[verbs.QPState]text.Text{
	verbs.QPSInit: {EN: "INIT: the QP knows its port, P_Key index and what the peer may do to it (qp_access_flags). RECVs may be posted now; sends not yet.",
		ZH: "INIT：QP 知道了自己的端口、P_Key 索引，以及对端可以对它做什么（qp_access_flags）。现在可以 post RECV，还不能发送。"},
	verbs.QPSRTR: {EN: "RTR: the QP knows where its peer is (ah_attr, dest_qp_num) and which PSN to expect first (rq_psn). It accepts packets; it still sends nothing. The port's GID table is listed: sgid_index picks this side's source GID from it, and path_mtu must be the peer's too.",
		ZH: "RTR：QP 知道了对端在哪里（ah_attr、dest_qp_num），以及第一个要收的 PSN（rq_psn）。它开始接收报文，但仍不发送。结果里列出了端口的 GID 表：sgid_index 从中选出本端的源 GID；path_mtu 必须和对端的一样。"},
	verbs.QPSRTS: {EN: "RTS: the send queue is live: its first PSN (sq_psn) is the one the peer expects, and retries and timeouts are set.",
		ZH: "RTS：发送队列开通：第一个 PSN（sq_psn）正是对端期待的那个，重传次数和超时也已设好。"},
}

// modifyQP is rdma_init_qp_attr(state) + ibv_modify_qp, showing both,
// with the edits of the track's step to st.
func (s *Session) modifyQP(st verbs.QPState) (Outcome, error) {
	return s.modifyQPAt(modifyStepID(st), st)
}

// modifyQPAt is modifyQP with the edits of step id.
func (s *Session) modifyQPAt(id StepID, st verbs.QPState) (Outcome, error) {
	return s.modifyQPWith(id, st, nil)
}

// modifyQPWith is modifyQPAt with the program's own change to the
// attributes rdma_init_qp_attr returned (adjust, nil for none): the C
// assignments it returns are shown after rdma_init_qp_attr.
func (s *Session) modifyQPWith(id StepID, st verbs.QPState, adjust func(*verbs.QPAttr) []c.Stmt) (Outcome, error) {
	before := s.recordQPState()
	attr, mask, err := s.id.InitQPAttr(st)
	var own []c.Stmt
	if err == nil && adjust != nil {
		own = adjust(&attr)
	}
	y := s.editQPAttr(id, &attr, &mask)
	set, get, call := modifyCalls(st, attr, mask, y)
	if err != nil {
		return withC(Outcome{}, set, failed(get, err)), problem(err,
			text.Text{EN: "rdma_cm cannot fill in the " + st.String() + " attributes yet", ZH: "rdma_cm 现在还给不出 " + st.String() + " 的属性"},
			text.Text{EN: "RTR needs the peer's QPN and RTS the peer's starting PSN (our sq_psn), both from the peer's CM message: on the client they come with CONNECT_RESPONSE, on the server with CONNECT_REQUEST", ZH: "RTR 需要对端的 QPN，RTS 需要对端的起始 PSN（我们的 sq_psn），两者都来自对端的 CM 消息：client 要等 CONNECT_RESPONSE，server 在 CONNECT_REQUEST 时就有了"})
	}
	get = get.Returned("0: mask = " + mask.String())
	var port []KV // RTR: the port's MTU and GID table beside the address vector
	pa, known := s.portView()
	if st == verbs.QPSRTR && known {
		port = addressKVs(pa, attr)
	}
	pre := append(append([]c.Stmt{set, get}, own...), editedAttrC(attr, mask, y)...) // the program's own edits
	if err := s.qp.Modify(attr, mask); err != nil {
		return withC(Outcome{Results: append(attrKVs(attr, mask), port...)}, append(pre, postFailed(call, err))...),
			modifyRefused(err, prevState[st], st, attr, mask, pa, known)
	}
	after := s.recordQPState()
	res := append([]KV{result(resTransition, before+" → "+after), result(resMask, mask.String())}, attrKVs(attr, mask)...)
	res = append(res, port...)
	return withC(Outcome{Results: res, Note: modifyNotes[st]}, append(pre, call.Returned("0"))...), nil
}

func stepAcceptManual(_ context.Context, s *Session) (Outcome, error) {
	info := s.localRemoteInfo()
	raw := info.Marshal()
	p := s.acceptParam(true)
	p.PrivateData = append(append([]byte(nil), raw...), s.myHello()...)
	fill := remoteInfoC(info, c.Call("htobe64", c.Hex(info.Addr, "(uintptr_t)buf")), "mr")
	y := s.editConnParam(IDAcceptManual, &p)
	call := acceptCall(p, true, y)
	if err := s.id.Accept(p); err != nil {
		return withC(Outcome{}, fill, failed(call, err)), err
	}
	s.set(func() { s.remote = &RemoteState{Info: info, Raw: raw} })
	s.sent("REP", fmt.Sprintf("qpn=0x%x, remote_info: addr=0x%x rkey=0x%x", p.QPNum, info.Addr, info.RKey))
	state := s.recordQPState()
	return withC(Outcome{
		Results: []KV{result(resREPQpNum, fmt.Sprintf("0x%x", p.QPNum)), result(resPrivateData, fmt.Sprintf("% x", raw)), result(resQPState, state)},
		Note: text.Text{EN: "id->qp is NULL, so librdmacm touched no QP: it only sent the REP, with our qp_num and, as the starting PSN, the CM's own number that rdma_init_qp_attr gave us as rq_psn at RTR (the client will use it as its sq_psn).",
			ZH: "id->qp 是 NULL，librdmacm 没碰任何 QP：它只发出 REP，里面带着我们的 qp_num，起始 PSN 则是 CM 自己的数，也就是推 RTR 时 rdma_init_qp_attr 给我们的 rq_psn（client 会把它用作 sq_psn）。"}}, fill, call.Returned("0")), nil
}

func stepConnectManual(_ context.Context, s *Session) (Outcome, error) {
	p := s.connectParam(true)
	y := s.editConnParam(IDConnectManual, &p)
	call := connectCall(p, true, y)
	if err := s.id.Connect(p); err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.sent("REQ", fmt.Sprintf("qpn=0x%x", p.QPNum))
	return withC(Outcome{Results: []KV{result(resSent, "CM REQ"), result(resREQQpNum, fmt.Sprintf("0x%x", p.QPNum))},
		Note: text.Text{EN: "id->qp is NULL, so the REQ carries conn_param.qp_num: that is how the server learns which QP to send to.",
			ZH: "id->qp 是 NULL，所以 REQ 里带的是 conn_param.qp_num：server 就靠它知道该往哪个 QP 发。"}}, call.Returned("0")), nil
}

func stepGetConnectResponse(ctx context.Context, s *Session) (Outcome, error) {
	ev, err := s.waitEvent(ctx, verbs.EventConnectResponse, s.peerWaitBound())
	get := getEvent(ev, verbs.EventConnectResponse, gotEvent(err))
	if err != nil {
		return withC(Outcome{}, get), err
	}
	s.gotText("REP", text.Text{EN: fmt.Sprintf("qpn=0x%x, %d B private data", ev.QPNum, len(ev.PrivateData)),
		ZH: fmt.Sprintf("qpn=0x%x，private data %d 字节", ev.QPNum, len(ev.PrivateData))})
	out := withC(Outcome{}, get)
	info, perr := privdata.ParseRemoteInfo(ev.PrivateData)
	if perr != nil {
		return out, problem(perr, text.Text{EN: "the server sent no remote_info: it is not an rdmatour/seed server", ZH: "server 没有发来 remote_info：它不是 rdmatour/seed 的 server"}, text.Text{})
	}
	raw := append([]byte(nil), ev.PrivateData...)
	s.set(func() { s.remote = &RemoteState{Info: info, Raw: raw} })
	peer, _ := s.learnPeerTour(ev.PrivateData[privdata.RemoteInfoSize:])
	state := s.recordQPState()
	out = withC(out, append(readRemoteInfo(info, len(ev.PrivateData)), ackEvent())...)
	out.Results = []KV{result(resEvent, ev.Type.String()), result(resServerQPN, fmt.Sprintf("0x%x", ev.QPNum)), result(resPrivateDataLen, fmt.Sprint(len(ev.PrivateData))),
		result(resRemoteAddr, fmt.Sprintf("0x%x", info.Addr)), result(resRemoteRkey, fmt.Sprintf("0x%x", info.RKey)), result(resQPState, state), peer}
	out.Note = text.Text{EN: "With a QP on the id, librdmacm would have moved it to RTR and RTS and sent the RTU right here. id->qp is NULL, so it hands the REP to us: the connection is half open until rdma_establish.",
		ZH: "如果 id 上挂着 QP，librdmacm 会在这里把它推到 RTR、RTS 并发出 RTU。现在 id->qp 是 NULL，它就把 REP 交给我们：在 rdma_establish 之前，连接只建立了一半。"}
	return out, nil
}

func stepEstablish(_ context.Context, s *Session) (Outcome, error) {
	call := establishCall()
	if err := s.id.Establish(); err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.sent("RTU", "")
	s.set(func() { s.connected = true })
	state := s.recordQPState()
	return withC(Outcome{Results: []KV{result(resSent, "CM RTU"), result(resQPState, state)},
		Note: text.Text{EN: "The RTU tells the server the connection is up; it gets RDMA_CM_EVENT_ESTABLISHED. This side gets no event: it already knows.",
			ZH: "RTU 告诉 server 连接已建立，server 会收到 RDMA_CM_EVENT_ESTABLISHED。本端不会再收到事件：它自己已经知道了。"}}, call.Returned("0")), nil
}

func stepDisconnectManual(ctx context.Context, s *Session) (Outcome, error) {
	out, err := stepDisconnect(ctx, s)
	if err != nil {
		return out, err
	}
	// The CM does not own the QP, so rdma_disconnect left it in RTS.
	before := s.recordQPState()
	mod := toErrCall()
	if err := s.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}, verbs.QPAttrState); err != nil {
		return withC(out, postFailed(mod, err)), err
	}
	after := s.recordQPState()
	out = withC(out, mod.Returned("0"))
	out.Results = append(out.Results, result(resQPAfterRdmaDisconnect, before), result(resQPAfterIbvModifyQp, after))
	out.Note = text.Text{EN: "rdma_disconnect sent the DREQ but left our QP alone (in " + before + "): it is not id->qp. Moving it to ERR ourselves flushes anything still queued.",
		ZH: "rdma_disconnect 发出了 DREQ，但没动我们的 QP（仍是 " + before + "）：它不是 id->qp。我们自己把它置为 ERR，队列里剩下的 WR 都会被 flush。"}
	return out, nil
}

// prevState is the state the manual track's step to a state starts in.
var prevState = map[verbs.QPState]verbs.QPState{verbs.QPSInit: verbs.QPSReset, verbs.QPSRTR: verbs.QPSInit, verbs.QPSRTS: verbs.QPSRTR}

// modifyStepID is the manual track's step that moves the QP to st.
func modifyStepID(st verbs.QPState) StepID {
	return map[verbs.QPState]StepID{verbs.QPSInit: IDModifyInit, verbs.QPSRTR: IDModifyRTR, verbs.QPSRTS: IDModifyRTS}[st]
}
