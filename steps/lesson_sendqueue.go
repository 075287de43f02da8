package steps

import (
	"context"
	"fmt"
	"syscall"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The send queue's lessons (issue 25 items 2 and 3), as rxe was measured
// to answer them (verbs/rdmacore/sqdepth_test.go):
//
//   - never-signaled: the client fills its send queue with unsignaled
//     WRITEs, pauses without polling, and fills it again. On rxe every
//     post returns 0: rxe's completer frees a WR's slot once the WR is
//     acknowledged, signaled or not, polled or not (rxe_comp.c
//     do_complete). The spec's rule, which mlx5 follows, frees slots only
//     when a completion of that WR or a later one is polled; there the
//     second batch fails with ENOMEM, and for good. The simulated NIC's
//     strict profile follows that rule (verbs.DeviceInfo's
//     SendSlotsFreedOnPoll), and the lesson predicts and ends by the
//     rule of the NIC in use: under it the tour's own WRITE and SEND are
//     refused too, and the server's wait ends when the client hangs up.
//   - signal-every-nth (lesson_signalnth.go): the pattern that never
//     fills the queue under either rule.
//   - inline-too-big (lesson_inline.go).

// UnsignaledPause is the never-signaled lesson's pause after each of
// its two batches: far longer than a round trip on rxe, so every WRITE
// of a batch has been acknowledged before anything more is posted.
const UnsignaledPause = time.Second

// WRIDUnsignaled is the first wr_id of the never-signaled lesson's
// WRITEs (the first batch counts up from it, the second from +100).
const WRIDUnsignaled = 1000

// TopicSendQueue is the topic of the send queue's lessons.
var TopicSendQueue = text.Text{EN: "The send queue: depth, signaling, inline", ZH: "发送队列：深度、signaled 与内联"}

func lessonNeverSignaled() Lesson {
	return Lesson{Name: "never-signaled", Notify: NotifySend, by: Client,
		Title:   text.Text{EN: "A send queue of unsignaled WRITEs, never polled", ZH: "发送队列塞满 unsignaled WRITE，从不 poll"},
		Summary: text.Text{EN: "the client posts a full send queue of unsignaled WRITEs, pauses without polling, and posts as many again: on rxe every post returns 0 (a slot frees when its WRITE is acknowledged); by the spec's rule, on mlx5 and under --nic strict, the second batch is ENOMEM, for good", ZH: "client 用 unsignaled WRITE 把发送队列塞满，不 poll 停一会儿，再塞满一次：在 rxe 上每次 post 都返回 0（WRITE 一被确认，槽位就空出来）；按规范的规则、在 mlx5 上和 --nic strict 下，第二批就是 ENOMEM，而且一直如此"},
		edit:    editNeverSignaled, predict: predictNeverSignaled}
}

func editNeverSignaled(cfg Config, t *tourEdit) {
	strict := slotsFreedOnPoll(cfg)
	if cfg.Role != Client {
		if strict { // the client's SEND never goes: its hang-up ends the wait
			t.edit(IDWaitNotify, func(st *Step) {
				st.Expect = expectPeerFailure()
				st.After = []StepID{IDDisconnect}
			})
		}
		return
	}
	post := Step{ID: IDPostUnsignaled, Side: Client, Section: SectionQP,
		Title: text.Text{EN: "Fill the send queue with unsignaled WRITEs, twice, never polling", ZH: "用 unsignaled WRITE 塞满发送队列，两次，从不 poll"},
		Call:  postSendGeneric(verbs.WRRDMAWrite, "buf", ", unsignaled, a queue's worth, twice"),
		run:   stepPostUnsignaled}
	if !strict {
		t.insertBefore(IDPostWrite, post)
		return
	}
	// The spec's rule: the queue stays full, so every later post is
	// refused and nothing is queued to poll.
	post.Expect = expectErrno("ibv_post_send", syscall.ENOMEM)
	t.insertBefore(IDPostWrite, post)
	refuse := func(id StepID, run func(context.Context, *Session) (Outcome, error)) {
		t.edit(id, func(st *Step) {
			st.Expect = expectErrno("ibv_post_send", syscall.ENOMEM)
			st.run = func(ctx context.Context, s *Session) (Outcome, error) {
				out, err := run(ctx, s)
				s.set(func() { s.lessonRun.writeRefused = err != nil })
				return out, err
			}
		})
	}
	refuse(IDPostWrite, stepPostWrite)
	t.edit(IDPollWrite, func(st *Step) {
		st.Title = text.Text{EN: "Poll the WRITE's completion, if it was queued", ZH: "轮询 WRITE 的完成（如果它入队了）"}
		st.run = stepPollWriteIfQueued
	})
	refuse(IDPostSend, stepPostSend)
	t.edit(IDPollNotify, func(st *Step) {
		st.Title = text.Text{EN: "Poll the SEND's completion, if it was queued", ZH: "轮询 SEND 的完成（如果它入队了）"}
		st.run = stepPollNotifyIfQueued
	})
	t.edit(IDDisconnect, func(st *Step) { st.After = nil })
}

// slotsFreedOnPoll says the NIC in use frees a send queue slot only when
// a completion of its WR or a later one is polled (the strict profile);
// false for rxe's rule, and when there is no device to ask.
func slotsFreedOnPoll(cfg Config) bool {
	if cfg.Provider == nil {
		return false
	}
	devs, err := cfg.Provider.Devices()
	return err == nil && len(devs) > 0 && devs[0].SendSlotsFreedOnPoll
}

// slotRuleText names the send queue slot rule of the NIC in use.
func slotRuleText(strict bool) text.Text {
	if strict {
		return text.Text{EN: "This NIC is the simulated one in its strict profile, which frees send queue slots by the spec's rule, as mlx5 does.",
			ZH: "这块网卡是模拟网卡的严格配置，它按规范的规则释放发送队列槽位，和 mlx5 一样。"}
	}
	return text.Text{EN: "This NIC frees send queue slots by rxe's rule (Soft-RoCE, or the simulated NIC playing it).",
		ZH: "这块网卡按 rxe 的规则释放发送队列槽位（Soft-RoCE，或扮演它的模拟网卡）。"}
}

func predictNeverSignaled(cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil // the server runs the plain tour
	}
	never := func(error, *Session) bool { return false }
	rule := slotRuleText(slotsFreedOnPoll(cfg))
	return &Prediction{At: IDPostUnsignaled,
		Question: text.Text{EN: "The client posts as many unsignaled RDMA WRITEs as its send queue holds (max_send_wr as granted), never polls, waits a second, and posts as many again. " + rule.EN + " What does the first post of the second batch return?",
			ZH: "client post 了发送队列能容纳的那么多 unsignaled RDMA WRITE（按实际得到的 max_send_wr），从不 poll，等一秒，再 post 同样多。" + rule.ZH + "第二批的第一次 post 返回什么？"},
		Choices: []Choice{
			errnoChoice("ibv_post_send", 0),
			errnoChoice("ibv_post_send", syscall.ENOMEM),
			errnoChoice("ibv_post_send", syscall.EAGAIN),
			{Text: text.Text{EN: "ibv_post_send blocks until a slot is free", ZH: "ibv_post_send 阻塞，直到有空槽位"}, happened: never},
		}}
}

// stepPostUnsignaled posts two batches of the tour's WRITE, unsignaled,
// each as deep as the send queue, each followed by UnsignaledPause, and
// polls nothing.
func stepPostUnsignaled(ctx context.Context, s *Session) (Outcome, error) {
	attr, err := s.qp.Query()
	if err != nil {
		return Outcome{}, err
	}
	slots := int(attr.Cap.MaxSendWR)
	msg := s.cfg.messageBytes()
	if err := s.mrData.Write(0, msg[:min(len(msg), s.mrData.Len())]); err != nil {
		return Outcome{}, err
	}
	info, target := s.remoteBuffer()
	var stmts []c.Stmt
	for batch := range 2 {
		wr := writeWR(verbs.WRRDMAWrite, uint64(WRIDUnsignaled+100*batch), s.mrData, uint32(len(msg)), info.Addr, info.RKey)
		wr.Flags = 0 // unsignaled: no completion on success
		call := postSendCall(wr, "buf", c.Dec(int64(len(msg)), "strlen(buf) + 1"), target, "ibv_post_send unsignaled WRITE")
		n, err := s.postBatch(wr, slots)
		if err != nil {
			stmts = append(stmts, call.Returned(fmt.Sprintf("%s, after %d of %d in batch %d", errnoText(err), n, slots, batch+1)))
			stmts = append(stmts, s.pollNothing())
			return unsignaledOutcome(slots, batch, n, err, stmts), err
		}
		stmts = append(stmts, call.Returned(fmt.Sprintf("0, each of %d times: batch %d, wr_id %d..%d", slots, batch+1, wr.WRID, wr.WRID+uint64(slots)-1)))
		// A pause after each batch: after the second, so that the tour's
		// own WRITE, next, finds the queue as rxe leaves it once the ACKs
		// are in (posted at once, over a wire, it could find them still
		// on their way back and get ENOMEM).
		select {
		case <-ctx.Done():
			return withC(Outcome{}, stmts...), ctx.Err()
		case <-time.After(UnsignaledPause):
		}
		stmts = append(stmts, c.S(c.Call("sleep", c.Dec(int64(UnsignaledPause/time.Second), ""))).Noted("no ibv_poll_cq: nothing is signaled"))
	}
	return unsignaledOutcome(slots, 2, 0, nil, stmts), nil
}

// postBatch posts wr n times, counting wr_id up, and says how many went in.
func (s *Session) postBatch(wr verbs.SendWR, n int) (int, error) {
	inERR := s.postedInERR()
	for i := range n {
		if err := s.qp.PostSend(wr); err != nil {
			return i, err
		}
		wr.WRID++
	}
	s.sentWR("RDMA WRITE", fmt.Sprintf("%d × %d B unsignaled", n, sendBytes(wr)), inERR)
	return n, nil
}

// unsignaledOutcome says what the batches did: batches full ones, then
// n posts of the next before err (nil: both batches went in).
func unsignaledOutcome(slots, batches, n int, err error, stmts []c.Stmt) Outcome {
	results := []KV{result(resReturned, fmt.Sprintf("%d posts into %d slots", batches*slots+n, slots))}
	note := text.Text{EN: fmt.Sprintf("Every post returned 0: %d unsignaled WRITEs went into a send queue of %d slots, and nothing was ever polled. rxe frees a WR's slot as soon as the WR is acknowledged, signaled or not (its completer advances the queue), so the first batch had left the queue empty. The spec's rule, which mlx5 follows, is stricter: a slot is reclaimed only when a completion of its WR, or of a later WR on the queue, is polled. There the second batch fails with ENOMEM, and no signaled WR can get in to change that: signal at least one WR in every max_send_wr, and poll it.", 2*slots, slots),
		ZH: fmt.Sprintf("每次 post 都返回 0：%d 个 unsignaled WRITE 进了一个只有 %d 个槽位的发送队列，而且一次也没有 poll。rxe 在 WR 被确认时就释放它的槽位，不管 signaled 与否（它的 completer 推进队列），所以第一批早已让队列空了出来。规范的规则（mlx5 照此实现）更严：只有 poll 到这个 WR 或队列上更晚的 WR 的完成，槽位才收回。在那里第二批会得到 ENOMEM，而且再也进不去一个 signaled WR 来改变局面：每 max_send_wr 个 WR 里至少 signal 一个，并且 poll 它。", 2*slots, slots)}
	if err != nil {
		note = text.Text{EN: fmt.Sprintf("ibv_post_send returned %s: the send queue's %d slots were all taken by WRITEs not yet reclaimed, although every one of them was acknowledged long ago. That is the spec's rule, which this NIC follows (the strict profile; mlx5 too): a slot frees only when a completion of its WR or a later one is polled, and unsignaled WRITEs give none. The CQ is empty, so nothing will ever free them: the tour's own WRITE and SEND are refused the same way. Signal at least one WR in every max_send_wr, and poll it (lesson signal-every-nth).", errnoText(err), slots),
			ZH: fmt.Sprintf("ibv_post_send 返回 %s：发送队列的 %d 个槽位都被还没收回的 WRITE 占着，尽管它们早就都被确认了。这就是规范的规则，这块网卡（严格配置，mlx5 也一样）照此实现：只有 poll 到这个 WR 或更晚的 WR 的完成，槽位才空出来，而 unsignaled WRITE 不产生完成。完成队列是空的，所以再也没有什么能释放它们：教程自己的 WRITE 和 SEND 也会同样被拒绝。每 max_send_wr 个 WR 里至少 signal 一个，并且 poll 它（课程 signal-every-nth）。", errnoText(err), slots)}
	}
	return withC(Outcome{Results: results, Note: note}, stmts...)
}

// pollNothing polls the CQ once to show it empty: nothing was signaled,
// so no completion will come to free the send queue's slots.
func (s *Session) pollNothing() c.Stmt {
	poll := pollOne(verbs.WCRDMAWrite, "RDMA_WRITE completion")
	wcs, err := s.cq.Poll(1)
	switch {
	case err != nil:
		return poll.Returned(errnoText(err))
	case len(wcs) > 0:
		return poll.Returned(fmt.Sprintf("1: wr_id %d, status %s", wcs[0].WRID, wcs[0].Status))
	}
	return poll.Returned("0: nothing was signaled, so nothing frees a slot")
}

// stepPollNotifyIfQueued polls the SEND's completion unless ibv_post_send
// refused the SEND (the strict never-signaled run).
func stepPollNotifyIfQueued(ctx context.Context, s *Session) (Outcome, error) {
	s.mu.Lock()
	refused := s.lessonRun.writeRefused
	s.mu.Unlock()
	if !refused {
		return stepPollNotify(ctx, s)
	}
	return withC(Outcome{Note: text.Text{EN: "Nothing to poll: ibv_post_send refused the SEND, so the server is never told. The client hangs up next, and that ends the server's wait.",
		ZH: "没有可 poll 的：ibv_post_send 拒绝了这个 SEND，server 永远收不到通知。接下来 client 断开连接，server 的等待也就此结束。"}},
		s.pollNothing()), nil
}
