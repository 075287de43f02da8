package steps

import (
	"context"
	"fmt"
	"syscall"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The inline-too-big lesson (issue 25 item 3): IBV_SEND_INLINE on a
// message larger than the QP's granted max_inline_data: ibv_post_send
// returns EINVAL and queues nothing (rxe.c validate_send_wr); the QP
// stays in RTS.

func lessonInlineTooBig() Lesson {
	return Lesson{Name: "inline-too-big", Notify: NotifySend, by: Client,
		Title:   text.Text{EN: "IBV_SEND_INLINE over max_inline_data", ZH: "IBV_SEND_INLINE 超过 max_inline_data"},
		Summary: text.Text{EN: "the client sets IBV_SEND_INLINE on its 42-byte WRITE, but its QP was granted less inline data (16 bytes on rxe): ibv_post_send returns EINVAL, nothing is queued, the QP stays in RTS", ZH: "client 给 42 字节的 WRITE 加上 IBV_SEND_INLINE，可它的 QP 得到的内联额度更小（rxe 上是 16 字节）：ibv_post_send 返回 EINVAL，什么也没入队，QP 仍在 RTS"},
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
		Question: text.Text{EN: fmt.Sprintf("The client sets IBV_SEND_INLINE on its %d-byte RDMA WRITE. Its QP was created with max_inline_data 0; the device may grant more (rxe grants 16, one SGE's worth; --nic strict grants exactly what was asked). What does ibv_post_send do?", n),
			ZH: fmt.Sprintf("client 给它 %d 字节的 RDMA WRITE 加上了 IBV_SEND_INLINE。它的 QP 创建时 max_inline_data 是 0；设备可能给得更多（rxe 给 16，一个 SGE 的大小；--nic strict 只给所要的数）。ibv_post_send 会怎样？", n)},
		Choices: []Choice{
			errnoChoice("ibv_post_send", 0),
			{Text: text.Text{EN: "ibv_post_send returns 0, and only the first 16 bytes land", ZH: "ibv_post_send 返回 0，但只有前 16 字节落地"}, happened: never},
			errnoChoice("ibv_post_send", syscall.EINVAL),
			errnoChoice("ibv_post_send", syscall.ENOMEM),
		}}
}
