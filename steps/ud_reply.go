package steps

import (
	"context"
	"errors"
	"fmt"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The ud tour's answer: UD has no ACK, so the application makes its own.
// The server answers the datagram it received (ibv_create_ah_from_wc:
// the only address it has for the client is the one the datagram
// brought), and the client, until that answer comes, sends its message
// again. Two processes need nothing else to agree on the order: however
// quick the client was, a resend finds the server's RECV.

const (
	WRIDUDReply = 601      // the server's answer
	UDReplyText = "got it" // what the answer says
	// UDResendEvery is how long the client waits for the answer before
	// it sends the message again.
	UDResendEvery = time.Second
	// shownResends is how many resends the step's C shows one by one.
	shownResends = 3
)

func stepUDReply(ctx context.Context, s *Session) (Outcome, error) {
	s.mu.Lock()
	wc := s.ud.received
	s.mu.Unlock()
	grh, err := s.mrRecv.Read(0, verbs.GRHLen)
	if err != nil {
		return Outcome{}, err
	}
	mk := createAHFromWCCall()
	ah, err := verbs.CreateAHFromWC(s.pd, wc, grh, s.id.PortNum())
	if err != nil {
		return withC(Outcome{}, failed(mk, err)), err
	}
	attr := ah.Attr()
	s.set(func() { s.ud.ah, s.ud.dest = ah, verbs.UDParam{AHAttr: attr, QPNum: wc.SrcQP, QKey: verbs.UDPQKey} })
	out, _, err := s.udSendTo(ctx, UDReplyText, WRIDUDReply, udToSender)
	stmts := append([]c.Stmt{mk.Returned("{ ... } (an opaque handle): " + attr.String())}, out.C...)
	out.C = nil
	out = withC(out, stmts...)
	out.Results = append([]KV{result(resAhFromTheGRHDgid, attr.DGID.String()), result(resHopLimitTheIPv4TTL, fmt.Sprint(attr.HopLimit)),
		result(resRemoteQpnWcSrcQp, fmt.Sprintf("0x%x", wc.SrcQP))}, out.Results...)
	out.Note = text.Text{EN: "The server had no address for the client: the SIDR request named none. The datagram brought one: ibv_create_ah_from_wc reads the GRH (over RoCE v2 its IPv4 header: source address, TTL) and the completion's src_qp says which QP to answer. The answer is the acknowledgement UD does not have: the application makes its own.",
		ZH: "server 本来没有 client 的地址：SIDR 请求里没有。数据报带来了一个：ibv_create_ah_from_wc 读 GRH（RoCE v2 下就是它的 IPv4 头：源地址、TTL），完成里的 src_qp 说明该回给哪个 QP。这个回答就是 UD 没有的那个确认：应用自己来做。"}
	return out, err
}

// stepUDAwaitReply polls for the server's answer; each time none came
// within UDResendEvery it sends the message again (the RECV the client
// posted before its first SEND stays posted for the answer).
func stepUDAwaitReply(ctx context.Context, s *Session) (Outcome, error) {
	s.mu.Lock()
	early := s.ud.answer
	s.mu.Unlock()
	if early != nil { // taken while polling for a SEND's completion
		return s.replyOutcome(*early, 0, nil)
	}
	ctx, cancel := s.boundPeerWait(ctx)
	defer cancel()
	msg := udMessage(s.cfg)
	var screen []c.Stmt
	resent := 0
	for {
		wc, err := s.pollReply(ctx)
		switch {
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			// No answer within UDResendEvery: the message or the answer was
			// dropped, or the server has not polled yet. Send it again.
			wr := s.udSendWR(WRIDSend, len(msg)+1)
			call := udSendCallTo(wr, c.Dec(int64(len(msg)+1), "strlen(send_buf) + 1"), udToServer)
			if err := s.qp.PostSend(wr); err != nil {
				return withC(Outcome{}, append(screen, postFailed(call, err))...), err
			}
			resent++
			s.sent("UD SEND", fmt.Sprintf("%d B to QP 0x%x (sent again, ×%d)", len(msg)+1, wr.UD.RemoteQPN, resent))
			if resent <= shownResends { // a person at the server may take minutes: show the first few
				screen = append(screen, pollOne(verbs.WCRecv, "UD reply").Returned(fmt.Sprintf("0 for %v: no answer", UDResendEvery)).Only(c.ScreenOnly),
					call.Returned("0").Only(c.ScreenOnly))
			}
			continue
		case err != nil:
			return withC(Outcome{}, append(screen, pollOne(verbs.WCRecv, "UD reply").Returned("no answer: "+err.Error()))...), fmt.Errorf("waiting for the server's answer: %w", err)
		}
		return s.replyOutcome(wc, resent, screen)
	}
}

// pollReply polls for up to UDResendEvery for the answer's RECV
// completion, taking the completions of sends on the way.
func (s *Session) pollReply(ctx context.Context) (verbs.WC, error) {
	pctx, cancel := context.WithTimeout(ctx, UDResendEvery)
	defer cancel()
	for {
		wc, err := verbs.PollOne(pctx, s.cq)
		if err != nil {
			return wc, err
		}
		s.addCompletion(wc)
		if wc.Status != verbs.WCSuccess {
			return wc, &CompletionError{What: "UD SEND or the answer's RECV", WC: wc}
		}
		if wc.Opcode == verbs.WCRecv {
			return wc, nil
		}
	}
}

// replyOutcome shows the answer that came, behind its GRH.
func (s *Session) replyOutcome(wc verbs.WC, resent int, screen []c.Stmt) (Outcome, error) {
	buf, err := s.mrRecv.Read(0, int(min(wc.ByteLen, UDRecvSize)))
	if err != nil || len(buf) < verbs.GRHLen {
		return Outcome{}, fmt.Errorf("the server's answer: %d bytes, shorter than the GRH", wc.ByteLen)
	}
	answer := cString(buf[verbs.GRHLen:])
	s.gotText(udToSender.what, text.Text{EN: fmt.Sprintf("the answer, %d B from QP 0x%x", wc.ByteLen-verbs.GRHLen, wc.SrcQP),
		ZH: fmt.Sprintf("回答，%d 字节，来自 QP 0x%x", wc.ByteLen-verbs.GRHLen, wc.SrcQP)})
	got := wcText(wc) + fmt.Sprintf(", .src_qp = 0x%x", wc.SrcQP)
	if resent > shownResends {
		got += fmt.Sprintf(" (after sending again %d times in all)", resent)
	}
	screen = append(screen, pollOne(verbs.WCRecv, "UD reply").Returned(got).Only(c.ScreenOnly),
		awaitReplyCall().Returned(fmt.Sprint(resent)).Only(c.ExportOnly),
		c.S(c.C(`print_escaped("[client] the server answered: ", recv_buf + 40, answer_wc.byte_len - 40)`)).Only(c.ExportOnly),
		c.S(c.C(`printf("[client] sent the message again %d time(s)\n", resent)`)).Only(c.ExportOnly))
	out := withC(Outcome{Results: []KV{result(resAnswerRecvBuf40, answer.String()), result(resSrcQp, fmt.Sprintf("0x%x", wc.SrcQP)),
		result(resSentAgain, fmt.Sprint(resent))}}, screen...)
	out.Note = text.Text{EN: "The server's answer arrived: now the client knows its message did. Without it, it would have sent the message again every second — UD itself never retries; the application does.",
		ZH: "server 的回答到了：现在 client 才知道自己的消息到了。如果没有回答，它会每秒重发一次——UD 自己从不重试，重试是应用的事。"}
	if resent > 0 {
		out.Note = text.Text{EN: fmt.Sprintf("The answer came after %d resend(s): a datagram before it found no RECV on the server (or the server had not polled yet) and nobody was told. Only the answer ends the loop — UD itself never retries; the application does.", resent),
			ZH: fmt.Sprintf("重发了 %d 次之后回答才到：之前的数据报在 server 上没碰到 RECV（或者 server 还没 poll），也没有人被告知。只有回答能结束这个循环——UD 自己从不重试，重试是应用的事。", resent)}
	}
	return out, nil
}
