package steps

import (
	"context"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The recover-qp lesson runs on the manual track: bad-rkey's WRITE puts
// both QPs in ERR (the requester by the NAK, the responder by its own
// error), and then each side brings its QP back on the same connection,
// as rxe allows (TestRecoveryFacts): drain, RESET, INIT, RTR, RTS with
// rdma_init_qp_attr's attributes (the old PSNs), and the WRITE and its
// SEND run again and land. The client's second WRITE waits for the
// server's RTS; the server posts its RECV again before it.

func lessonRecoverQP() Lesson {
	return Lesson{Name: "recover-qp", Notify: NotifySend, Track: TrackManual, by: Client,
		Title:   text.Text{EN: "Bring a QP back from ERR", ZH: "把 QP 从 ERR 拉回来"},
		Summary: text.Text{EN: "after a bad-rkey WRITE both QPs are in ERR: each side drains its CQ and moves its QP RESET, INIT, RTR, RTS again with the old PSNs, and the WRITE then lands on the same two QPs", ZH: "rkey 错误的 WRITE 之后两端的 QP 都在 ERR：两端各自排空 CQ，把 QP 重新推过 RESET、INIT、RTR、RTS，沿用原来的 PSN，之后 WRITE 在原来这两个 QP 上成功落地"},
		preset:  []string{"client:post-write.rkey=lkey"},
		edit:    editRecoverQP, predict: predictRecoverQP}
}

// editRecoverQP: the first WRITE fails as in bad-rkey, the SEND behind
// it is posted into ERR and flushed; then both sides recover and the
// data path runs again.
func editRecoverQP(cfg Config, t *tourEdit) {
	recovery := func(role Role) []Step {
		return []Step{drainStep(role), resetStep(role), recoverModifyStep(role, verbs.QPSInit),
			recoverModifyStep(role, verbs.QPSRTR), recoverModifyStep(role, verbs.QPSRTS)}
	}
	if cfg.Role == Server {
		first := waitNotifyStep()
		first.Milestones = 0 // the exchange that lands is the second one
		first.Expect, first.After = expectPeerFailure(), []StepID{IDPollWrite}
		t.replace(IDWaitNotify, first)
		steps := recovery(Server)
		steps = append(steps[:3:3], postRecvAgainStep(), steps[3], steps[4], waitNotifyAgainStep())
		insertChain(t, IDWaitNotify, steps)
		return
	}
	i := indexOf(t.tour, IDPollNotify)
	if i < 0 {
		t.remove(IDPollNotify) // records the missing step
		return
	}
	pollNotify := t.tour[i]
	t.remove(IDPollNotify)
	t.edit(IDPollWrite, func(st *Step) { st.Expect = expectStatus(verbs.WCRemAccessErr) })
	t.edit(IDPostSend, func(st *Step) {
		run := st.run
		st.run = func(ctx context.Context, s *Session) (Outcome, error) {
			out, err := run(ctx, s)
			out.Note = text.Text{EN: "Posted on a QP in ERR: ibv_post_send still returns 0, and the SEND comes back at once as IBV_WC_WR_FLUSH_ERR. It never leaves this side.",
				ZH: "post 到一个处于 ERR 的 QP 上：ibv_post_send 仍然返回 0，这个 SEND 随即以 IBV_WC_WR_FLUSH_ERR 回来。它根本没离开本端。"}
			return out, err
		}
	})
	steps := append(recovery(Client), postWriteAgainStep(), pollWriteAgainStep(), postSendAgainStep(), pollNotify)
	insertChain(t, IDPostSend, steps)
	t.edit(IDDisconnectManual, func(st *Step) { st.After = []StepID{IDWaitNotifyAgain} })
}

// insertChain puts steps, in order, right after the step id.
func insertChain(t *tourEdit, id StepID, steps []Step) {
	for _, st := range steps {
		t.insertAfter(id, st)
		id = st.ID
	}
}

func predictRecoverQP(cfg Config) *Prediction {
	if cfg.Role == Server {
		return &Prediction{At: IDWaitNotifyAgain, Choices: serverWaitChoices(),
			Question: text.Text{EN: "The client's first WRITE had a bad rkey: both QPs went to ERR. Both sides drained, moved their QP through RESET, INIT, RTR and RTS again with the attributes rdma_init_qp_attr gave (the old PSNs), and this side posted a new RECV. The client WRITEs again and SENDs. How does this wait end?",
				ZH: "client 的第一个 WRITE 用错了 rkey：两端的 QP 都进了 ERR。两端各自排空 CQ，用 rdma_init_qp_attr 给的属性（原来的 PSN）把 QP 重新推过 RESET、INIT、RTR、RTS，本端也重新 post 了一个 RECV。client 再次 WRITE 并 SEND。这次等待会怎样结束？"}}
	}
	return &Prediction{At: IDPollWriteAgain,
		Question: text.Text{EN: "The first WRITE's bad rkey put both QPs in ERR. Both sides drained their CQ and moved the same QPs through RESET, INIT, RTR and RTS again, with the peer's QPN and the old PSNs from the CM exchange. How does the second WRITE, now with the right rkey, complete?",
			ZH: "第一个 WRITE 的 rkey 错了，两端的 QP 都进了 ERR。两端各自排空 CQ，把原来的 QP 重新推过 RESET、INIT、RTR、RTS，用的是建连时交换的对端 QPN 和原来的 PSN。第二个 WRITE 这次用对了 rkey，它的完成状态是什么？"},
		Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRetryExcErr), statusChoice(verbs.WCWRFlushErr), statusChoice(verbs.WCRemAccessErr)}}
}

// The recover-one-side lesson is recover-qp with the server left in
// ERR: the client alone drains, resets and comes back to RTS, and its
// second WRITE meets a QP that drops it. rxe answers that with transport
// retry counter exceeded once the retries run out (TestRecoveryFacts:
// the requester back alone). The client keeps rdma_init_qp_attr's
// retry_cnt, 0, here: at 7 rxe would resend for ever
// (TestRecoveryRetriesAcrossTheGap) and the poll would never end.

func lessonRecoverOneSide() Lesson {
	return Lesson{Name: "recover-one-side", Notify: NotifySend, Track: TrackManual, by: Client,
		Title:   text.Text{EN: "Bring back one side only", ZH: "只把一端拉回来"},
		Summary: text.Text{EN: "after a bad-rkey WRITE both QPs are in ERR; the client alone drains and moves its QP back to RTS, the server leaves its QP in ERR: the client's second WRITE ends in transport retry counter exceeded", ZH: "rkey 错误的 WRITE 之后两端的 QP 都在 ERR；只有 client 排空 CQ 并把 QP 推回 RTS，server 的 QP 留在 ERR：client 的第二个 WRITE 以 transport retry counter exceeded 结束"},
		preset:  []string{"client:post-write.rkey=lkey"},
		edit:    editRecoverOneSide, predict: predictRecoverOneSide}
}

func editRecoverOneSide(cfg Config, t *tourEdit) {
	if cfg.Role == Server {
		t.edit(IDWaitNotify, func(st *Step) { st.Expect, st.After = expectPeerFailure(), []StepID{IDPollWrite} })
		t.insertAfter(IDWaitNotify, drainStep(Server))
		t.insertAfter(IDDrainCQ, waitHangUpStep())
		return
	}
	editRecoverQP(cfg, t)
	t.edit(IDRecoverRTS, func(st *Step) {
		st.run = func(_ context.Context, s *Session) (Outcome, error) {
			out, err := s.modifyQPAt(IDRecoverRTS, verbs.QPSRTS)
			if err == nil {
				out.Note = text.Text{EN: "RTS again with rdma_init_qp_attr's attributes as they came, the old sq_psn and retry_cnt 0. This side is back; the server is not: its QP is still in ERR, and nothing here can tell.",
					ZH: "用 rdma_init_qp_attr 原样给出的属性再次进入 RTS：原来的 sq_psn，retry_cnt 为 0。本端回来了，server 却没有：它的 QP 仍在 ERR，而本端对此一无所知。"}
			}
			return out, err
		}
	})
	t.edit(IDPostWriteAgain, func(st *Step) { st.After = nil })
	t.edit(IDPollWriteAgain, func(st *Step) { st.Expect, st.After = expectStatus(verbs.WCRetryExcErr), nil })
	t.remove(IDPostSendAgain)
	t.remove(IDPollNotify)
	t.edit(IDDisconnectManual, func(st *Step) { st.After = nil })
}

func predictRecoverOneSide(cfg Config) *Prediction {
	if cfg.Role == Server {
		return nil
	}
	return &Prediction{At: IDPollWriteAgain,
		Question: text.Text{EN: "The first WRITE's bad rkey put both QPs in ERR. The client drained its CQ and moved its QP through RESET, INIT, RTR and RTS again with the old PSNs; the server did nothing and its QP is still in ERR. How does the client's second WRITE, now with the right rkey, complete?",
			ZH: "第一个 WRITE 的 rkey 错了，两端的 QP 都进了 ERR。client 排空了 CQ，用原来的 PSN 把 QP 重新推过 RESET、INIT、RTR、RTS；server 什么都没做，它的 QP 仍在 ERR。client 的第二个 WRITE 这次用对了 rkey，它的完成状态是什么？"},
		Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRetryExcErr), statusChoice(verbs.WCWRFlushErr), statusChoice(verbs.WCRemAccessErr)}}
}

// waitHangUpStep: the server, its QP left in ERR, waits for the client
// to give up and disconnect (so the client's retries meet a QP in ERR,
// not a connection already gone).
func waitHangUpStep() Step {
	return Step{ID: IDWaitHangUp, Side: Server, Section: SectionQP, Waits: true, After: []StepID{IDDisconnectManual},
		Title: text.Text{EN: "Leave the QP in ERR and wait for the client to hang up", ZH: "把 QP 留在 ERR，等 client 断开"},
		Call:  waitEventGeneric(verbs.EventDisconnected),
		run: func(ctx context.Context, s *Session) (Outcome, error) {
			out, err := stepWaitDisconnected(ctx, s)
			out.Results = append(out.Results, result(resQPState, s.recordQPState()))
			out.Note = text.Text{EN: "All this while the server's QP stayed in ERR and dropped what the client sent; the client's retries ran out, and it hung up.",
				ZH: "这段时间里 server 的 QP 一直在 ERR，丢掉 client 发来的一切；client 的重传次数用完，就断开了连接。"}
			return out, err
		}}
}
