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
//     second batch fails with ENOMEM, and for good.
//   - inline-too-big: IBV_SEND_INLINE on a message larger than the QP's
//     granted max_inline_data: ibv_post_send returns EINVAL and queues
//     nothing (rxe.c validate_send_wr); the QP stays in RTS.

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
		Summary: text.Text{EN: "the client posts a full send queue of unsignaled WRITEs, pauses without polling, and posts as many again: on rxe every post returns 0 (a slot frees when its WRITE is acknowledged); by the spec's rule, and on mlx5, the second batch is ENOMEM", ZH: "client 用 unsignaled WRITE 把发送队列塞满，不 poll 停一会儿，再塞满一次：在 rxe 上每次 post 都返回 0（WRITE 一被确认，槽位就空出来）；按规范的规则、在 mlx5 上，第二批就是 ENOMEM"},
		edit:    editNeverSignaled, predict: predictNeverSignaled}
}

func editNeverSignaled(cfg Config, t *tourEdit) {
	if cfg.Role != Client {
		return
	}
	t.insertBefore(IDPostWrite, Step{ID: IDPostUnsignaled, Side: Client, Section: SectionQP,
		Title: text.Text{EN: "Fill the send queue with unsignaled WRITEs, twice, never polling", ZH: "用 unsignaled WRITE 塞满发送队列，两次，从不 poll"},
		Call:  postSendGeneric(verbs.WRRDMAWrite, "buf", ", unsignaled, a queue's worth, twice"),
		run:   stepPostUnsignaled})
}

func predictNeverSignaled(cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil // the server runs the plain tour
	}
	never := func(error, *Session) bool { return false }
	return &Prediction{At: IDPostUnsignaled,
		Question: text.Text{EN: "The client posts as many unsignaled RDMA WRITEs as its send queue holds (max_send_wr as granted), never polls, waits a second, and posts as many again. What does the first post of the second batch return?",
			ZH: "client post 了发送队列能容纳的那么多 unsignaled RDMA WRITE（按实际得到的 max_send_wr），从不 poll，等一秒，再 post 同样多。第二批的第一次 post 返回什么？"},
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
	s.mu.Lock()
	info := s.remote.Info
	s.mu.Unlock()
	target := Target{AddrC: c.Hex(info.Addr, "remote_addr"), RKeyC: c.Hex(uint64(info.RKey), "rkey")}
	var stmts []c.Stmt
	for batch := range 2 {
		wr := writeWR(verbs.WRRDMAWrite, uint64(WRIDUnsignaled+100*batch), s.mrData, uint32(len(msg)), info.Addr, info.RKey)
		wr.Flags = 0 // unsignaled: no completion on success
		call := postSendCall(wr, "buf", c.Dec(int64(len(msg)), "strlen(buf) + 1"), target, "ibv_post_send unsignaled WRITE")
		n, err := s.postBatch(wr, slots)
		if err != nil {
			stmts = append(stmts, call.Returned(fmt.Sprintf("%s, after %d of %d in batch %d", errnoText(err), n, slots, batch+1)))
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
		note = text.Text{EN: fmt.Sprintf("ibv_post_send returned %s: the send queue's %d slots were all taken by WRITEs not yet reclaimed. That is the spec's rule (mlx5's too): a slot frees only when a completion of its WR or a later one is polled, and unsignaled WRITEs give none.", errnoText(err), slots),
			ZH: fmt.Sprintf("ibv_post_send 返回 %s：发送队列的 %d 个槽位都被还没收回的 WRITE 占着。这就是规范（也是 mlx5）的规则：只有 poll 到这个 WR 或更晚的 WR 的完成，槽位才空出来，而 unsignaled WRITE 不产生完成。", errnoText(err), slots)}
	}
	return withC(Outcome{Results: results, Note: note}, stmts...)
}

func lessonInlineTooBig() Lesson {
	return Lesson{Name: "inline-too-big", Notify: NotifySend, by: Client,
		Title:   text.Text{EN: "IBV_SEND_INLINE over max_inline_data", ZH: "IBV_SEND_INLINE 超过 max_inline_data"},
		Summary: text.Text{EN: "the client sets IBV_SEND_INLINE on its 42-byte WRITE, but its QP was granted 16 bytes of inline data: ibv_post_send returns EINVAL, nothing is queued, the QP stays in RTS", ZH: "client 给 42 字节的 WRITE 加上 IBV_SEND_INLINE，可它的 QP 只得到 16 字节的内联额度：ibv_post_send 返回 EINVAL，什么也没入队，QP 仍在 RTS"},
		preset:  []string{"client:post-write.send_flags=+INLINE"}, edit: editInlineTooBig, predict: predictInlineTooBig}
}

// editInlineTooBig: a refused WRITE leaves nothing to poll, and the SEND
// that notifies the server still goes (the QP is in RTS). With room
// granted (--edit client:create-qp.max_inline_data=64) the WRITE goes
// inline and its completion is polled as in the tour.
func editInlineTooBig(cfg Config, t *tourEdit) {
	if cfg.Role != Client {
		return
	}
	t.edit(IDPostWrite, func(st *Step) {
		st.Expect = expectErrno("ibv_post_send", syscall.EINVAL)
		st.run = func(ctx context.Context, s *Session) (Outcome, error) {
			out, err := stepPostWrite(ctx, s)
			s.set(func() { s.lessonRun.writeRefused = err != nil })
			return out, err
		}
	})
	t.edit(IDPollWrite, func(st *Step) {
		st.Title = text.Text{EN: "Poll the WRITE's completion, if it was queued", ZH: "轮询 WRITE 的完成（如果它入队了）"}
		st.run = stepPollWriteIfQueued
	})
}

// stepPollWriteIfQueued polls the WRITE's completion unless ibv_post_send
// refused the WRITE: a refused WR was never queued and never completes.
func stepPollWriteIfQueued(ctx context.Context, s *Session) (Outcome, error) {
	s.mu.Lock()
	refused := s.lessonRun.writeRefused
	s.mu.Unlock()
	if !refused {
		return stepPollWrite(ctx, s)
	}
	// One poll, to show it: empty now and for good.
	poll := pollOne(verbs.WCRDMAWrite, "RDMA_WRITE completion")
	wcs, err := s.cq.Poll(1)
	if err == nil && len(wcs) > 0 {
		err = fmt.Errorf("inline-too-big: a completion (wr_id %d) although the WRITE was refused", wcs[0].WRID)
	}
	if err != nil {
		return withC(Outcome{}, poll.Returned(errnoText(err))), err
	}
	return withC(Outcome{Note: text.Text{EN: "Nothing to poll: ibv_post_send refused the WRITE, so it was never queued and no completion will ever report it. The QP is still in RTS; the notification SEND goes next.",
		ZH: "没有可 poll 的：ibv_post_send 拒绝了这个 WRITE，它从未入队，也永远不会有完成报告它。QP 仍在 RTS；接下来照常 SEND 通知。"}},
		poll.Returned("0: empty, and it stays so: the WRITE was never queued")), nil
}

func predictInlineTooBig(cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil
	}
	n := len(cfg.messageBytes())
	never := func(error, *Session) bool { return false }
	return &Prediction{At: IDPostWrite,
		Question: text.Text{EN: fmt.Sprintf("The client sets IBV_SEND_INLINE on its %d-byte RDMA WRITE. Its QP was created with max_inline_data 0, and rxe granted 16 (one SGE's worth). What does ibv_post_send do?", n),
			ZH: fmt.Sprintf("client 给它 %d 字节的 RDMA WRITE 加上了 IBV_SEND_INLINE。它的 QP 创建时 max_inline_data 是 0，rxe 给了 16（一个 SGE 的大小）。ibv_post_send 会怎样？", n)},
		Choices: []Choice{
			errnoChoice("ibv_post_send", 0),
			{Text: text.Text{EN: "ibv_post_send returns 0, and only the first 16 bytes land", ZH: "ibv_post_send 返回 0，但只有前 16 字节落地"}, happened: never},
			errnoChoice("ibv_post_send", syscall.EINVAL),
			errnoChoice("ibv_post_send", syscall.ENOMEM),
		}}
}
