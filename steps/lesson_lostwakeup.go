package steps

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The lost-wakeup lesson: the client's event loop checks its CQ (empty),
// posts the WRITE, is busy elsewhere for LostWakeupBusy, then arms the
// CQ and sleeps. The WRITE completed before the arm, and arming watches
// only completions still to come, so no event is raised and the sleep
// would never end. The lesson bounds it at LostWakeupWait and says so,
// then shows the fix: poll after arming. The poll comes before the post,
// so it is empty on every run and every backend.

const (
	// LostWakeupBusy is the lesson's moment between the empty poll and
	// the arm, in which the WRITE completes.
	LostWakeupBusy = time.Second
	// LostWakeupWait bounds the sleep that would never end.
	LostWakeupWait = 3 * time.Second
)

func lessonLostWakeup() Lesson {
	return Lesson{Name: "lost-wakeup", Notify: NotifySend, by: Client,
		Title:   text.Text{EN: "Poll, then arm: the lost wake-up", ZH: "先 poll 再挂通知：丢失的唤醒"},
		Summary: text.Text{EN: "the client polls its CQ, then arms it and sleeps in ibv_get_cq_event; the WRITE completed in between, so no event comes (bounded at 3 s), and the poll after arming finds the completion", ZH: "client 先 poll CQ，再挂通知、睡进 ibv_get_cq_event；WRITE 恰好在中间完成，于是没有事件（本课限 3 秒），挂通知之后再 poll 才拿到完成"},
		edit:    editLostWakeup, predict: predictLostWakeup}
}

func editLostWakeup(cfg Config, t *tourEdit) {
	if cfg.Role != Client {
		return
	}
	addCompletionSteps(Client, t, false) // the loop arms after its poll: the mistake
	t.edit(IDPostWrite, func(st *Step) {
		st.Title = text.Text{EN: "Poll the CQ (empty), then post the WRITE", ZH: "先 poll CQ（空的），再 post WRITE"}
		st.Call, st.run = generic(pollOne(verbs.WCRDMAWrite, ""))+"\n"+st.Call, stepPollThenPost
	})
	t.edit(IDPollWrite, func(st *Step) {
		st.Title = text.Text{EN: "Busy a moment, then arm and sleep (the wrong order)", ZH: "忙一会儿，再挂通知、睡下（顺序错了）"}
		st.Call, st.run = generic(reqNotifyCall("cq"), getCQEventCall()), stepArmThenSleep
	})
}

func predictLostWakeup(cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil // the server runs the plain tour
	}
	return &Prediction{At: IDPollWrite,
		Question: text.Text{EN: "The client polls its CQ and finds it empty; its WRITE completes a moment later; then it arms the CQ with ibv_req_notify_cq and sleeps in ibv_get_cq_event. How does the sleep end?",
			ZH: "client poll 了 CQ，是空的；片刻之后它的 WRITE 完成了；然后它用 ibv_req_notify_cq 挂上通知，睡进 ibv_get_cq_event。这次睡眠会怎样结束？"},
		Choices: []Choice{
			{Text: text.Text{EN: "the event wakes it at once: the completion is in the CQ", ZH: "事件立刻把它叫醒：完成就在 CQ 里"},
				happened: func(err error, s *Session) bool { return err == nil && !s.sleptThrough() }},
			{Text: text.Text{EN: "no event comes: it would sleep forever with the completion in its CQ", ZH: "不会有事件：它会守着 CQ 里的完成一直睡下去"},
				happened: func(_ error, s *Session) bool { return s.sleptThrough() }},
			errnoChoice("ibv_req_notify_cq", syscall.EAGAIN),
			errnoChoice("ibv_get_cq_event", syscall.EAGAIN),
		}}
}

func getCQEventCall() c.Stmt {
	return c.Must("ibv_get_cq_event", c.Call("ibv_get_cq_event", c.C("channel"), c.C("&ev_cq"), c.C("&ev_ctx")))
}

// stepPollThenPost is the event loop's check of the CQ, then the WRITE.
func stepPollThenPost(ctx context.Context, s *Session) (Outcome, error) {
	poll := pollOne(verbs.WCRDMAWrite, "RDMA_WRITE completion")
	wcs, err := s.cq.Poll(1)
	if err != nil || len(wcs) > 0 {
		if err == nil {
			err = fmt.Errorf("lost-wakeup: a completion (wr_id %d) was in the CQ before the WRITE", wcs[0].WRID)
		}
		return withC(Outcome{}, poll.Returned(errnoText(err))), err
	}
	out, err := stepPostWrite(ctx, s)
	return prependC(out, []c.Stmt{poll.Returned("0: empty, nothing posted yet")}), err
}

// stepArmThenSleep is the lesson's mistake, then its fix.
func stepArmThenSleep(ctx context.Context, s *Session) (Outcome, error) {
	ncq, ok := s.cq.(verbs.NotifyCQ)
	if !ok || s.cc == nil {
		return Outcome{}, &verbs.Error{Func: "ibv_req_notify_cq", Errno: syscall.EINVAL, Detail: "the CQ has no completion channel"}
	}
	poll := pollOne(verbs.WCRDMAWrite, "RDMA_WRITE completion")
	stmts, wc, err := s.armThenSleep(ctx, ncq)
	if err != nil {
		return withC(Outcome{}, stmts...), err
	}
	note := text.Text{EN: fmt.Sprintf("The WRITE completed while the client was elsewhere (%v, the lesson's pause), after its poll and before its arm. Arming watches only completions still to come, so no event came: a real program would sleep here for good. rdmatour stopped the sleep after %v. The fix, shown last: arm, then poll, and sleep only if the poll finds nothing.", LostWakeupBusy, LostWakeupWait),
		ZH: fmt.Sprintf("WRITE 在 client 忙别的事时（%v，本课的停顿）完成了：在它 poll 之后、挂通知之前。挂通知只盯着以后的完成，所以没有事件：真实程序会在这里一直睡下去。rdmatour 在 %v 后叫停了这次睡眠。最后一行是改法：先挂通知，再 poll，poll 不到才睡。", LostWakeupBusy, LostWakeupWait)}
	if !s.sleptThrough() {
		note = text.Text{EN: "An event came after all: the WRITE completed only after the arm (a slow peer), so this run did not lose the wake-up.", ZH: "还是来了事件：WRITE 在挂通知之后才完成（对端慢），这次没有丢失唤醒。"}
	}
	s.addCompletion(wc)
	out := withC(Outcome{Results: []KV{result(resStatus, wc.Status.String()), {Name: resOpcode, Value: opcodeText(wc)}, result(resWrId, fmt.Sprint(wc.WRID))}, Note: note},
		append(stmts, poll.Returned(wcText(wc)))...)
	if wc.Status != verbs.WCSuccess {
		return out, &CompletionError{What: "RDMA_WRITE completion", WC: wc}
	}
	s.got("ACK", wc.Opcode.String())
	return out, nil
}

// armThenSleep waits LostWakeupBusy, arms, sleeps at most
// LostWakeupWait, and polls again (the fix).
func (s *Session) armThenSleep(ctx context.Context, ncq verbs.NotifyCQ) (stmts []c.Stmt, wc verbs.WC, err error) {
	select {
	case <-ctx.Done():
		return stmts, wc, ctx.Err()
	case <-time.After(LostWakeupBusy):
	}
	stmts = append(stmts, c.S(c.Call("sleep", c.Dec(int64(LostWakeupBusy/time.Second), ""))).Noted("elsewhere for a moment: the WRITE completes now"))
	arm := reqNotifyCall("cq")
	if err := ncq.ReqNotify(false); err != nil {
		return append(stmts, failed(arm, err)), wc, err
	}
	stmts = append(stmts, arm.Returned("0"))
	bounded, cancel := context.WithTimeout(ctx, LostWakeupWait)
	got, err := s.cc.GetCQEvent(bounded)
	cancel()
	switch {
	case err == nil:
		got.AckEvents(1)
		stmts = append(stmts, getCQEventCall().Returned("0: an event after all"))
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		s.set(func() { s.lessonRun.slept = true })
		stmts = append(stmts, getCQEventCall().Returned(fmt.Sprintf("no event in %v: asleep with a completion in the CQ (rdmatour's bound; a program sleeps on)", LostWakeupWait)))
	default:
		return stmts, wc, err
	}
	wc, events, err := s.waitOne(ctx) // the fix: armed, so poll before any sleep
	return append(stmts, events...), wc, err
}

// sleptThrough says the lesson's sleep ran out with no event.
func (s *Session) sleptThrough() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lessonRun.slept
}
