package steps

import (
	"context"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The no-recv lesson: the server posts no RECV before accepting. With
// rnr_retry_count 0 the client's SEND fails at once; with 7 the RNR NAKs
// go on until the server posts the RECV late (rnrwait.go waits for the
// evidence that the NAK went out).

func lessonNoRecv() Lesson {
	return Lesson{Name: "no-recv", Notify: NotifySend, by: Server,
		Title:   text.Text{EN: "SEND with no posted RECV", ZH: "没有 post RECV 就 SEND"},
		Summary: text.Text{EN: "the server posts its RECV only after the client's SEND: an RNR NAK, then RNR retry counter exceeded (or, with --rnr-retry 7, retries until the late RECV)", ZH: "server 等 client 的 SEND 到了之后才 post RECV：先是 RNR NAK，然后 RNR retry counter exceeded（--rnr-retry 7 时一直重试，直到迟到的 RECV）"},
		edit:    editNoRecv, preset: []string{"server:post-recv.run=skip"}, predict: predictNoRecv}
}

// postRecvLateStep is the lesson's own step: the RECV, posted after the
// client's SEND has been refused (or while it is being RNR-NAKed).
func postRecvLateStep(after StepID) Step {
	return Step{ID: IDPostRecvLate, Side: Server, Section: SectionQP, Waits: true, After: []StepID{after},
		Title: text.Text{EN: "Post the RECV, late (after the client's SEND)", ZH: "迟到的 post_recv（等 client 的 SEND 之后）"},
		Call:  postRecvGeneric(), run: stepPostRecvLate}
}

func editNoRecv(cfg Config, t *tourEdit) {
	forever := cfg.RNRRetry == MaxRNRRetry
	if cfg.Role == Server {
		// post-recv itself goes by the preset's edit (skipSteps).
		if forever {
			t.insertAfter(IDGetEstablished, postRecvLateStep(IDPostSend)) // while the SEND is being RNR-NAKed
			return
		}
		t.insertAfter(IDGetEstablished, postRecvLateStep(IDPollNotify)) // after the SEND has failed
		t.edit(IDWaitNotify, func(st *Step) {
			st.After = []StepID{IDDisconnect}
			st.Expect = expectPeerFailure()
			st.Expect.What = text.Text{EN: "no SEND ever arrives: the client hangs up (" + st.Expect.What.EN + ")",
				ZH: "SEND 永远不会到达：client 断开了（" + st.Expect.What.ZH + "）"}
		})
		return
	}
	if forever {
		t.edit(IDPollNotify, func(st *Step) { st.After = []StepID{IDPostRecvLate} })
		return
	}
	t.edit(IDPollNotify, func(st *Step) { st.Expect = expectStatus(verbs.WCRNRRetryExcErr) })
	t.edit(IDDisconnect, func(st *Step) { st.After = nil })
}

func predictNoRecv(cfg Config) *Prediction {
	retry := text.Text{EN: "rnr_retry_count is 0", ZH: "rnr_retry_count 是 0"}
	if cfg.RNRRetry == MaxRNRRetry {
		retry = text.Text{EN: "rnr_retry_count is 7", ZH: "rnr_retry_count 是 7"}
	}
	if cfg.Role == Server {
		return &Prediction{At: IDWaitNotify, Choices: serverWaitChoices(),
			Question: text.Text{EN: "The server posts its RECV only after the client's SEND has arrived, and " + retry.EN + ". How does its wait for the client's notification end?",
				ZH: "server 等 client 的 SEND 到了之后才 post RECV，而且 " + retry.ZH + "。它等待 client 通知的这一步会怎样结束？"}}
	}
	return &Prediction{At: IDPollNotify,
		Question: text.Text{EN: "The server has no RECV posted when the client's SEND arrives, and " + retry.EN + ". How does the SEND complete?",
			ZH: "client 的 SEND 到达时，server 还没有 post 任何 RECV，而且 " + retry.ZH + "。这个 SEND 的完成状态是什么？"},
		Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRNRRetryExcErr), statusChoice(verbs.WCRetryExcErr), statusChoice(verbs.WCRemOpErr)}}
}

// stepPostRecvLate is the no-recv lesson's late RECV: posted only once
// the SEND it would have caught has been refused.
func stepPostRecvLate(ctx context.Context, s *Session) (Outcome, error) {
	how, err := s.waitForRNRNAK(ctx)
	if err != nil {
		return Outcome{}, err
	}
	out, err := stepPostRecv(ctx, s)
	if err != nil {
		return out, err
	}
	out.Results = append(out.Results, KV{Name: resRNRNAKSeenFirst, Value: how})
	if !s.wireShowsNAK() {
		s.sentText("RNR NAK", text.Text{EN: "no RECV posted when the client's SEND arrived (" + how.EN + ")", ZH: "client 的 SEND 到达时还没有 post RECV（" + how.In(text.ZH) + "）"})
	}
	out.Note = text.Text{EN: "Posted only after this side had refused the client's SEND with an RNR NAK (" + how.EN + "): the RECV is late.",
		ZH: "等本端已经用 RNR NAK 拒绝了 client 的 SEND（" + how.In(text.ZH) + "）之后才 post：这个 RECV 迟到了。"}
	return out, nil
}
