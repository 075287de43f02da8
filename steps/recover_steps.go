package steps

import (
	"context"
	"fmt"
	"strings"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The steps that bring a manual-track QP back from ERR on the same
// connection (the recover-qp lesson): drain the flushed completions,
// ibv_modify_qp to RESET, then INIT, RTR and RTS again with the
// attributes rdma_init_qp_attr still gives (the CM's connection is
// ESTABLISHED, so they are the ones of the first bring-up: the same
// peer QPN and the old PSNs), then the data path once more. On rxe this
// works when both sides do it (measured: TestRecoveryFacts; the
// simulated NIC: TestRecoveryAsRxe).

// drainQuiet is how long the CQ must stay empty before the drain calls
// it drained. rxe flushes from its tasks (rxe_qp_error schedules them),
// so on a newer kernel a flush may land just after an empty poll; the
// measurement drains the same way (TestRecoveryFacts, 200 ms there).
const drainQuiet = 100 * time.Millisecond

// Result names of the recovery steps.
var (
	resFlushedNow   = text.Text{EN: "flush completions polled now", ZH: "这次 poll 到的 flush 完成"}
	resFlushedInAll = text.Text{EN: "flush completions since the error", ZH: "出错以来的 flush 完成"}
	resPolled       = text.Text{EN: "completions polled", ZH: "poll 到的完成"}
)

func drainStep(role Role) Step {
	return Step{ID: IDDrainCQ, Side: role, Section: SectionCQ,
		Title: text.Text{EN: "Drain the CQ: poll until it is empty", ZH: "排空 CQ：一直 poll 到它为空"},
		Call:  generic(drainCalls("")...), run: stepDrainCQ}
}

// drainCalls is the drain loop's C; result is what it returned this run
// ("" before it runs).
func drainCalls(result string) []c.Stmt {
	loop := c.S(c.C("while (ibv_poll_cq(cq, 1, &wc) == 1) flushed += wc.status == IBV_WC_WR_FLUSH_ERR"))
	if result != "" {
		loop = loop.Returned(result)
	}
	return []c.Stmt{c.S(c.C("int flushed = 0")), loop}
}

func stepDrainCQ(ctx context.Context, s *Session) (Outcome, error) {
	var got []verbs.WC
	quiet := time.Now()
	for time.Since(quiet) < drainQuiet {
		wcs, err := s.cq.Poll(16)
		if err != nil {
			return withC(Outcome{}, drainCalls(errnoText(err))...), err
		}
		for _, wc := range wcs {
			s.addCompletion(wc)
			s.completionFate(wc)
			quiet = time.Now()
		}
		got = append(got, wcs...)
		select {
		case <-ctx.Done():
			return withC(Outcome{}, drainCalls("interrupted")...), ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	var seen []string
	for _, wc := range got {
		seen = append(seen, fmt.Sprintf("wr_id %d %s", wc.WRID, wc.Status.CName()))
	}
	ret := "0: the CQ is empty; nothing was left"
	switch {
	case len(got) == 1:
		ret = fmt.Sprintf("1 (%s), then 0: the CQ is empty", seen[0])
	case len(got) > 1:
		ret = fmt.Sprintf("1, %d times (%s), then 0: the CQ is empty", len(got), strings.Join(seen, ", "))
	}
	state := s.recordQPState()
	now := countFlushes(got)
	out := Outcome{Results: []KV{result(resPolled, fmt.Sprint(len(got))), result(resFlushedNow, fmt.Sprint(now)),
		result(resFlushedInAll, fmt.Sprint(s.flushesSoFar())), result(resQPState, state)}}
	out.Note = text.Text{EN: "Every WR that was on the QP when it went to ERR, and every one posted since, comes back as IBV_WC_WR_FLUSH_ERR: not done. The loop takes them until the CQ is empty, because the next step, RESET, empties the queues without any completion: what is not polled by then is lost.",
		ZH: "QP 进入 ERR 时还在队列上的每个 WR，以及之后 post 的每个 WR，都以 IBV_WC_WR_FLUSH_ERR 回来：表示没做。这个循环一直取到 CQ 为空，因为下一步 RESET 会清空队列而不产生任何完成：到那时还没 poll 到的就丢了。"}
	return withC(out, drainCalls(ret)...), nil
}

func countFlushes(wcs []verbs.WC) int {
	n := 0
	for _, wc := range wcs {
		if wc.Status == verbs.WCWRFlushErr {
			n++
		}
	}
	return n
}

// flushesSoFar counts the flush completions this side has polled.
func (s *Session) flushesSoFar() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return countFlushes(s.completions)
}

func resetStep(role Role) Step {
	return Step{ID: IDModifyReset, Side: role, Section: SectionQP,
		Title: text.Text{EN: "QP: ERR → RESET", ZH: "QP：ERR → RESET"},
		Call:  generic(toStateCall(verbs.QPSReset)), run: stepModifyReset}
}

// toStateCall is ibv_modify_qp to st with IBV_QP_STATE alone.
func toStateCall(st verbs.QPState) c.Stmt {
	return c.Must("ibv_modify_qp to "+st.String(), c.Call("ibv_modify_qp", c.C("qp"),
		c.Ref(c.Compound("struct ibv_qp_attr", c.F("qp_state", c.C(st.CName())))), c.C(verbs.QPAttrState.String())))
}

func stepModifyReset(_ context.Context, s *Session) (Outcome, error) {
	before := s.recordQPState()
	call := toStateCall(verbs.QPSReset)
	if err := s.qp.Modify(verbs.QPAttr{State: verbs.QPSReset}, verbs.QPAttrState); err != nil {
		return withC(Outcome{}, postFailed(call, err)), err
	}
	after := s.recordQPState()
	return withC(Outcome{Results: []KV{result(resTransition, before+" → "+after), result(resQpNum, fmt.Sprintf("0x%x", s.qp.Num()))},
		Note: text.Text{EN: "Any state may go to RESET. RESET empties both queues without completions and forgets the PSNs and the peer; the QP keeps its number, its CQs and its PD. From here it is the QP ibv_create_qp gave, and needs INIT, RTR and RTS again.",
			ZH: "任何状态都可以进入 RESET。RESET 清空两个队列，不产生完成，并忘掉 PSN 和对端；QP 保留自己的编号、CQ 和 PD。从这里开始它就和 ibv_create_qp 刚给出的 QP 一样，需要重新 INIT、RTR、RTS。"}},
		call.Returned("0")), nil
}

// recoverNotes are the notes of the second bring-up, per state.
var recoverNotes = map[verbs.QPState]text.Text{
	verbs.QPSInit: {EN: "The same INIT as the first time: port, P_Key index and access flags, from rdma_init_qp_attr. RECVs may be posted again from here.",
		ZH: "和第一次一样的 INIT：端口、P_Key 索引和访问权限，都来自 rdma_init_qp_attr。从这里起又可以 post RECV 了。"},
	verbs.QPSRTR: {EN: "The same peer: the CM's connection is still ESTABLISHED, so rdma_init_qp_attr gives the peer's QPN and the rq_psn of the CM exchange again, the old values. rxe takes the old PSNs when the peer reuses its own too (TestRecoveryFacts); new ones would have to be agreed with the peer.",
		ZH: "还是同一个对端：CM 的连接仍是 ESTABLISHED，所以 rdma_init_qp_attr 再次给出建连时交换的对端 QPN 和 rq_psn，也就是原来的值。只要对端也沿用它自己原来的 PSN，rxe 就接受旧的 PSN（TestRecoveryFacts）；换新的 PSN 就得和对端重新约定。"},
	verbs.QPSRTS: {EN: "RTS with the old sq_psn, the one the peer's responder expects again after its own RESET, and retry_cnt 7: nothing tells this side when the peer is back, and a packet that reaches its QP still in ERR or RESET is dropped. On rxe, 7 resends until the peer answers; on hardware it is 7 retries, 8 local ACK timeouts in all. The send queue is live: the next WRITE goes out on the same two QPs, with no new connection.",
		ZH: "用原来的 sq_psn 进入 RTS，对端的响应端在它自己 RESET 之后期待的正是这个 PSN；retry_cnt 设为 7：没有任何东西告诉本端对端什么时候回来，而到达仍处于 ERR 或 RESET 的 QP 的报文会被丢弃。在 rxe 上，7 表示一直重传到对端回答为止；在硬件上是重传 7 次，一共 8 个本地 ACK 超时。发送队列重新开通：下一个 WRITE 就在原来这两个 QP 上发出，不需要新连接。"},
}

// recoverModifyStep is the second bring-up's move to st.
func recoverModifyStep(role Role, st verbs.QPState) Step {
	id := map[verbs.QPState]StepID{verbs.QPSInit: IDRecoverInit, verbs.QPSRTR: IDRecoverRTR, verbs.QPSRTS: IDRecoverRTS}[st]
	title := map[verbs.QPState]text.Text{
		verbs.QPSInit: {EN: "QP: RESET → INIT again", ZH: "QP：再次 RESET → INIT"},
		verbs.QPSRTR:  {EN: "QP: INIT → RTR again, the same peer", ZH: "QP：再次 INIT → RTR，还是同一个对端"},
		verbs.QPSRTS:  {EN: "QP: RTR → RTS again, the old sq_psn", ZH: "QP：再次 RTR → RTS，沿用原来的 sq_psn"},
	}[st]
	return Step{ID: id, Side: role, Section: SectionQP, Title: title, Call: modifyGeneric(st),
		run: func(_ context.Context, s *Session) (Outcome, error) {
			var adjust func(*verbs.QPAttr) []c.Stmt
			if st == verbs.QPSRTS {
				adjust = retryAcrossTheGap
			}
			out, err := s.modifyQPWith(id, st, adjust)
			if err == nil {
				out.Note = recoverNotes[st]
			}
			return out, err
		}}
}

// recoverRetryCnt is the retry_cnt of the way back. The two sides come
// back each at its own pace, with nothing telling one that the other is
// ready: the first packet may reach a QP still in ERR, RESET or INIT,
// which drop it. rdma_init_qp_attr gives the retry_count the tour
// connected with, 0: that one drop would end the connection again. At 7
// rxe resends every local ACK timeout until the peer answers, for ever
// (measured: TestRecoveryRetriesAcrossTheGap, gaps of 0.2-4 s; rxe_comp.c
// rxe_completer); the spec, and hardware, count 7 retries.
const recoverRetryCnt = 7

// retryAcrossTheGap sets retry_cnt for the way back, as a line of the
// program's own after rdma_init_qp_attr.
func retryAcrossTheGap(a *verbs.QPAttr) []c.Stmt {
	was := a.RetryCnt
	a.RetryCnt = recoverRetryCnt
	return []c.Stmt{c.S(c.Assign("attr.retry_cnt", c.Dec(recoverRetryCnt, ""))).
		Noted(fmt.Sprintf("rdma_init_qp_attr said %d; the peer may not be back yet", was))}
}

// The data path once more, after the recovery.

func postRecvAgainStep() Step {
	return Step{ID: IDPostRecvAgain, Side: Server, Section: SectionQP,
		Title: text.Text{EN: "Post the receive again", ZH: "重新 post 接收"},
		Call:  postRecvGeneric(), run: func(ctx context.Context, s *Session) (Outcome, error) {
			out, err := stepPostRecv(ctx, s)
			out.Note = text.Text{EN: "The first RECV was flushed and RESET left the receive queue empty: the client's SEND needs a new one, posted before the QP is back in RTS.",
				ZH: "第一个 RECV 已被 flush，RESET 又把接收队列清空了：client 的 SEND 需要一个新的，要在 QP 回到 RTS 之前 post 好。"}
			return out, err
		}}
}

func postWriteAgainStep() Step {
	return Step{ID: IDPostWriteAgain, Side: Client, Section: SectionData, After: []StepID{IDRecoverRTS},
		Title: text.Text{EN: "RDMA WRITE again, with the server's rkey", ZH: "再做一次 RDMA WRITE，用 server 的 rkey"},
		Call:  postSendGeneric(verbs.WRRDMAWrite, "buf", ""), run: func(_ context.Context, s *Session) (Outcome, error) {
			out, err := s.postWriteAs(IDPostWriteAgain, verbs.WRRDMAWrite)
			out.Note = text.Text{EN: "The same WRITE on the same QP, now with the rkey from remote_info. It belongs after the server's RTS. Should the server not be back yet (two processes move each at its own pace), its QP drops the WRITE and this side's NIC sends it again, every local ACK timeout (retry_cnt 7), until the server's QP is in RTR: the poll that follows waits for that.",
				ZH: "同一个 QP 上同样的 WRITE，这次用的是 remote_info 里的 rkey。它应当在 server 进入 RTS 之后发。万一 server 还没回来（两个进程各按自己的节奏走），它的 QP 会丢掉这个 WRITE，本端网卡每过一个本地 ACK 超时就重发一次（retry_cnt 7），直到 server 的 QP 进入 RTR：接下来的 poll 等的就是这个。"}
			return out, err
		}}
}

func pollWriteAgainStep() Step {
	return Step{ID: IDPollWriteAgain, Side: Client, Section: SectionCQ, Waits: true, After: []StepID{IDRecoverRTS},
		Title: text.Text{EN: "Poll the second WRITE's completion", ZH: "轮询第二个 WRITE 的完成"},
		Call:  generic(pollOne(verbs.WCRDMAWrite, "")), run: stepPollWrite}
}

func postSendAgainStep() Step {
	return Step{ID: IDPostSendAgain, Side: Client, Section: SectionQP,
		Title: text.Text{EN: "SEND \"RDMA_WRITE_DONE\" again", ZH: "再次 SEND \"RDMA_WRITE_DONE\" 通知"},
		Call:  postSendGeneric(verbs.WRSend, "send_buf", ""), run: func(ctx context.Context, s *Session) (Outcome, error) {
			out, err := stepPostSend(ctx, s)
			out.Note = text.Text{EN: "This SEND consumes the RECV the server posted again after its RESET.", ZH: "这个 SEND 消耗的是 server 在 RESET 之后重新 post 的那个 RECV。"}
			return out, err
		}}
}

func waitNotifyAgainStep() Step {
	st := waitNotifyStep()
	st.ID, st.After = IDWaitNotifyAgain, []StepID{IDPollWriteAgain, IDPollNotify}
	st.Title = text.Text{EN: "Wait for the client's notification again", ZH: "再次等待 client 的完成通知"}
	return st
}
