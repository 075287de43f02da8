package steps

import (
	"context"
	"fmt"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The ud tour's client steps, and its teardown.

func stepUDConnect(_ context.Context, s *Session) (Outcome, error) {
	call := udConnectCall()
	if err := s.id.Connect(verbs.ConnParam{}); err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.sent("SIDR_REQ", "")
	return withC(Outcome{Results: []KV{result(resSent, "SIDR_REQ")},
		Note: text.Text{EN: "For a UDP-space id rdma_connect sends a SIDR request: \"which QP serves this port?\". Nothing is set up between the two QPs.",
			ZH: "对 UDP 空间的 id，rdma_connect 发出的是 SIDR 请求：“哪个 QP 在服务这个端口？”两个 QP 之间什么也不会建立。"}}, call.Returned("0")), nil
}

func stepUDGetEstablished(ctx context.Context, s *Session) (Outcome, error) {
	ev, err := s.waitEvent(ctx, verbs.EventEstablished, s.cfg.Timeout)
	get := getEvent(ev, verbs.EventEstablished, gotEvent(err))
	if err != nil && ev.Type == verbs.EventUnreachable && ev.Status == 1 {
		err = problem(err, text.Text{EN: "no UD service on the server's port (SIDR reply: unsupported): the server is not running --tour ud",
			ZH: "server 的端口上没有 UD 服务（SIDR 应答：unsupported）：server 没有用 --tour ud 运行"},
			text.Text{EN: "start the server with --tour ud: RDMA_PS_UDP and RDMA_PS_TCP ports are separate", ZH: "用 --tour ud 启动 server：RDMA_PS_UDP 和 RDMA_PS_TCP 的端口是分开的"})
	}
	if err != nil {
		return withC(Outcome{}, get), err
	}
	p := ev.UD
	s.set(func() { s.ud.dest = p })
	s.got("SIDR_REP", fmt.Sprintf("qp_num=0x%x qkey=0x%x", p.QPNum, p.QKey))
	stmts := append([]c.Stmt{get}, udReadParam(p)...)
	stmts = append(stmts, ackEvent())
	return withC(Outcome{
		Results: []KV{result(resEvent, ev.Type.String()), result(resParamUdQpNum, fmt.Sprintf("0x%x", p.QPNum)), result(resParamUdQkey, fmt.Sprintf("0x%x", p.QKey)),
			result(resParamUdAhAttr, p.AHAttr.String()), result(resQPState, s.recordQPState())},
		Note: text.Text{EN: "ESTABLISHED here means only that the server answered: its QP number, its Q_Key and an address vector to it. Copy them before rdma_ack_cm_event frees the event.",
			ZH: "这里的 ESTABLISHED 只表示 server 回答了：它的 QP 号、Q_Key，以及到它的地址向量。在 rdma_ack_cm_event 释放事件之前把它们拷出来。"},
	}, stmts...), nil
}

func stepUDCreateAH(_ context.Context, s *Session) (Outcome, error) {
	s.mu.Lock()
	attr := s.ud.dest.AHAttr
	s.mu.Unlock()
	call := createAHCall()
	ah, err := verbs.CreateAH(s.pd, attr)
	if err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.set(func() { s.ud.ah = ah })
	return withC(Outcome{Results: []KV{KV{Name: resAh, Value: valCreated}, result(resDgid, attr.DGID.String()), result(resSgidIndex, fmt.Sprint(attr.SGIDIndex))},
		Note: text.Text{EN: "On RC the QP itself knows its one peer; on UD every SEND names its destination: this address handle, a QP number and a Q_Key.",
			ZH: "RC 的 QP 自己就认得唯一的对端；UD 的每个 SEND 都要指明目的地：这个地址句柄、一个 QP 号和一个 Q_Key。"}},
		call.Returned("{ ... } (an opaque handle)")), nil
}

// udSend posts one datagram of text to the session's UD destination
// (s.ud) and polls its completion.
func (s *Session) udSend(ctx context.Context, text string, wrID uint64) (Outcome, verbs.WC, error) {
	return s.udSendTo(ctx, text, wrID, udToServer)
}

// udSendTo is udSend with the destination named as to says in C.
func (s *Session) udSendTo(ctx context.Context, text string, wrID uint64, to udTo) (Outcome, verbs.WC, error) {
	msg := append([]byte(text), 0)
	fill := c.S(c.Call("snprintf", c.C("send_buf"), c.Dec(UDSendSize, ""), c.C(`"%s"`), c.Str(text))).Returned(fmt.Sprint(len(text)))
	if err := s.mrSend.Write(0, msg); err != nil {
		return Outcome{}, verbs.WC{}, err
	}
	wr := s.udSendWR(wrID, len(msg))
	call := udSendCallTo(wr, c.Dec(int64(len(msg)), "strlen(send_buf) + 1"), to)
	if err := s.qp.PostSend(wr); err != nil {
		return withC(Outcome{}, fill, postFailed(call, err)), verbs.WC{}, err
	}
	s.sent(to.what, fmt.Sprintf("%d B to QP 0x%x", len(msg), wr.UD.RemoteQPN))
	pctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	poll := udPollSend(to.what)
	stmts := []c.Stmt{fill, call.Returned("0")}
	var wc verbs.WC
	for {
		var err error
		wc, err = verbs.PollOne(pctx, s.cq)
		if err != nil {
			return withC(Outcome{}, append(stmts, poll.Returned("0: no completion came"))...), wc, fmt.Errorf("%s: %w", to.what, err)
		}
		s.addCompletion(wc)
		if wc.Status != verbs.WCSuccess || wc.Opcode != verbs.WCRecv {
			break
		}
		// The server's answer came before this SEND's completion: keep
		// it for ud-await-reply (the exported program's answer_wc).
		answer := wc
		s.set(func() { s.ud.answer = &answer })
		stmts = append(stmts, poll.Returned(wcText(wc)+" (the server's answer, already: kept)").Only(c.ScreenOnly))
	}
	out := withC(Outcome{Results: []KV{result(resStatus, wc.Status.String()), result(resBytes, fmt.Sprint(len(msg)))}},
		append(stmts, poll.Returned(wcText(wc)))...)
	if wc.Status != verbs.WCSuccess {
		return out, wc, &CompletionError{What: to.what, WC: wc}
	}
	return out, wc, nil
}

// udSendWR is a signaled SEND of the first n bytes of send_buf to the
// session's UD destination.
func (s *Session) udSendWR(wrID uint64, n int) verbs.SendWR {
	s.mu.Lock()
	dest, ah := s.ud.dest, s.ud.ah
	s.mu.Unlock()
	return verbs.SendWR{WRID: wrID, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: s.mrSend.Addr(), Length: uint32(n), LKey: s.mrSend.LKey()}},
		UD:     verbs.UDDest{AH: ah, RemoteQPN: dest.QPNum, RemoteQKey: dest.QKey}}
}

func stepUDSendEarly(ctx context.Context, s *Session) (Outcome, error) {
	// The RECV for the server's answer goes first: the server answers
	// whichever datagram finds its RECV, and on a real NIC that can be
	// this one (nothing makes it arrive before the server posts).
	rwr := verbs.RecvWR{WRID: WRIDRecv, SGList: []verbs.SGE{{Addr: s.mrRecv.Addr(), Length: UDRecvSize, LKey: s.mrRecv.LKey()}}}
	recv := udPostRecvCall(rwr)
	if err := s.qp.PostRecv(rwr); err != nil {
		return withC(Outcome{}, postFailed(recv, err)), err
	}
	out, _, err := s.udSendTo(ctx, UDEarlyText, WRIDUDEarly, udToServerEarly)
	stmts := append([]c.Stmt{recv.Returned("0")}, out.C...)
	out.C = nil
	out = withC(out, stmts...)
	if err == nil {
		out.Note = text.Text{EN: "First a RECV for the server's answer, then the datagram. IBV_WC_SUCCESS, although the server has not posted a RECV yet: the datagram reached the server and was dropped there. No ACK, no RNR NAK, no retry — a UD completion only says the datagram left.",
			ZH: "先为 server 的回答 post 一个 RECV，再发数据报。IBV_WC_SUCCESS，尽管 server 还没 post RECV：数据报到了 server，在那里被丢掉了。没有 ACK，没有 RNR NAK，也不重试——UD 的完成只说明数据报已经发出。"}
	}
	return out, err
}

func stepUDSend(ctx context.Context, s *Session) (Outcome, error) {
	out, _, err := s.udSend(ctx, udMessage(s.cfg), WRIDSend)
	if err == nil {
		out.Note = text.Text{EN: "The same SUCCESS as before: the sender cannot tell a datagram that arrived from one that was dropped. Only an answer from the server can tell it, so the next step waits for one.",
			ZH: "和上一个一样的 SUCCESS：发送端分不清数据报是到了还是被丢了。只有 server 的回答能告诉它，所以下一步就等这个回答。"}
	}
	return out, err
}

func stepUDTeardown(_ context.Context, s *Session) (Outcome, error) {
	return s.releaseAll(text.Text{EN: "No rdma_disconnect: there is no connection. The address handle goes first: it holds the PD.",
		ZH: "不调用 rdma_disconnect：本来就没有连接。地址句柄最先释放：它占着 PD。"})
}
