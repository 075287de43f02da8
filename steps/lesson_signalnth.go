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

// The signal-every-nth lesson (issue 25 item 2): the pattern that keeps
// a small send queue from filling under either slot rule. The client
// asks for max_send_wr 4 (rxe grants 7: rxe_queue_init's round-up,
// measured in TestRxeQueueCaps), posts NthWRITEs WRITEs back to back
// with every SignalEvery-th signaled, and before a post that would take
// more slots than the queue has, polls one completion: a polled
// completion retires its WR and every earlier one on the queue. That
// count is what a portable program keeps, since by the spec's rule (mlx5,
// the strict profile: sqslots.go) a slot frees only then; rxe frees it
// sooner, at the ACK, so on rxe the count is an upper bound.

const (
	// NthWRITEs is how many WRITEs the lesson posts.
	NthWRITEs = 12
	// SignalEvery is N: every N-th WRITE is signaled. It must be at
	// most max_send_wr, or the queue fills before a signaled WR is in.
	SignalEvery = 4
	// WRIDEveryNth is one below the first wr_id of the lesson's WRITEs.
	WRIDEveryNth = 2000
	// everyNthPace is the pause after each post and poll when a person
	// watches, so the live state's outstanding count can be seen moving.
	everyNthPace = 250 * time.Millisecond
)

func lessonSignalEveryNth() Lesson {
	return Lesson{Name: "signal-every-nth", Notify: NotifySend, by: Client,
		Title: text.Text{EN: "Signal every Nth WRITE, and poll before the queue is full", ZH: "每 N 个 WRITE signal 一个，队列满之前先 poll"},
		Summary: text.Text{EN: fmt.Sprintf("the client asks for max_send_wr 4 (7 granted), posts %d WRITEs back to back with every %dth signaled, and polls one completion whenever the next post would need an 8th slot: %d completions in all, no ENOMEM on rxe or under --nic strict", NthWRITEs, SignalEvery, NthWRITEs/SignalEvery),
			ZH: fmt.Sprintf("client 申请 max_send_wr 4（得到 7），连续 post %d 个 WRITE，每 %d 个 signal 一个，下一次 post 需要第 8 个槽位时就先 poll 一个完成：一共 %d 个完成，在 rxe 上和 --nic strict 下都没有 ENOMEM", NthWRITEs, SignalEvery, NthWRITEs/SignalEvery)},
		preset: []string{"client:create-qp.max_send_wr=4"},
		edit:   editSignalEveryNth, predict: predictSignalEveryNth}
}

func editSignalEveryNth(cfg Config, t *tourEdit) {
	if cfg.Role != Client {
		return
	}
	t.insertBefore(IDPostWrite, Step{ID: IDPostEveryNth, Side: Client, Section: SectionQP, Waits: true,
		Title: text.Text{EN: fmt.Sprintf("Post %d WRITEs, every %dth signaled, polling before the queue is full", NthWRITEs, SignalEvery),
			ZH: fmt.Sprintf("post %d 个 WRITE，每 %d 个 signal 一个，队列满之前先 poll", NthWRITEs, SignalEvery)},
		Call: postSendGeneric(verbs.WRRDMAWrite, "buf", fmt.Sprintf(", every %dth signaled; ibv_poll_cq when the queue is full", SignalEvery)),
		run:  stepPostEveryNth})
	t.insertAfter(IDPostEveryNth, Step{ID: IDMeasureWrites, Side: Client, Section: SectionQP, Waits: true,
		Title: text.Text{EN: "Measure: WRITEs of 8 B to 4 KiB, one at a time and a queue's depth in flight",
			ZH: "测量：8 字节到 4 KiB 的 WRITE，逐个发和一个队列深度同时在途"},
		Call: measureGeneric(),
		run:  stepMeasureWrites})
}

func predictSignalEveryNth(cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil
	}
	count := func(n int) Choice {
		return Choice{Text: text.Text{EN: fmt.Sprintf("%d completions", n), ZH: fmt.Sprintf("%d 个完成", n)},
			happened: func(err error, s *Session) bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				return err == nil && s.lessonRun.nthPolled == n
			}}
	}
	rule := slotRuleText(slotsFreedOnPoll(cfg))
	return &Prediction{At: IDPostEveryNth,
		Question: text.Text{EN: fmt.Sprintf("The client asked for max_send_wr 4 and was granted 7. It posts %d RDMA WRITEs back to back, every %dth signaled, and whenever the next post would need an 8th slot it first polls one completion; at the end it polls the rest. %s How many completions does it poll for the %d WRITEs?", NthWRITEs, SignalEvery, rule.EN, NthWRITEs),
			ZH: fmt.Sprintf("client 申请 max_send_wr 4，得到了 7。它连续 post %d 个 RDMA WRITE，每 %d 个 signal 一个；每当下一次 post 需要第 8 个槽位，就先 poll 一个完成；最后把剩下的 poll 完。%s这 %d 个 WRITE 一共 poll 到几个完成？", NthWRITEs, SignalEvery, rule.ZH, NthWRITEs)},
		Choices: []Choice{count(NthWRITEs), count(NthWRITEs / SignalEvery), count(0), errnoChoice("ibv_post_send", syscall.ENOMEM)}}
}

// everyNth is the step's run: the queue's depth, what the application
// counts as outstanding (posted since the last polled completion's WR),
// and the C it ran.
type everyNth struct {
	s           *Session
	slots       int
	posted      int
	outstanding int
	reclaimed   uint64 // the wr_id of the last polled completion
	polled      []uint64
	stmts       []c.Stmt
}

// stepPostEveryNth posts NthWRITEs WRITEs, every SignalEvery-th
// signaled, polling one completion before any post the queue has no
// slot for by the application's count, then the rest.
func stepPostEveryNth(ctx context.Context, s *Session) (Outcome, error) {
	ctx, cancel := s.boundPeerWait(ctx)
	defer cancel()
	attr, err := s.qp.Query()
	if err != nil {
		return Outcome{}, err
	}
	msg := s.cfg.messageBytes()
	if err := s.mrData.Write(0, msg[:min(len(msg), s.mrData.Len())]); err != nil {
		return Outcome{}, err
	}
	info, target := s.remoteBuffer()
	r := &everyNth{s: s, slots: int(attr.Cap.MaxSendWR), reclaimed: WRIDEveryNth}
	inERR := s.postedInERR()
	for i := 1; i <= NthWRITEs; i++ {
		if r.outstanding == r.slots {
			if err := r.poll(ctx); err != nil {
				return r.outcome(false), err
			}
		}
		wr := writeWR(verbs.WRRDMAWrite, uint64(WRIDEveryNth+i), s.mrData, uint32(len(msg)), info.Addr, info.RKey)
		how := "signaled"
		if i%SignalEvery != 0 {
			wr.Flags, how = 0, "unsignaled"
		}
		call := postSendCall(wr, "buf", c.Dec(int64(len(msg)), "strlen(buf) + 1"), target, "ibv_post_send WRITE")
		if err := s.qp.PostSend(wr); err != nil {
			r.stmts = append(r.stmts, postFailed(call, err))
			return r.outcome(false), err
		}
		r.posted++
		r.outstanding++
		r.stmts = append(r.stmts, call.Returned(fmt.Sprintf("0: wr_id %d %s; outstanding %d of %d", wr.WRID, how, r.outstanding, r.slots)))
		r.pace(ctx)
	}
	s.sentWR("RDMA WRITE", fmt.Sprintf("%d × %d B, every %dth signaled", NthWRITEs, len(msg), SignalEvery), inERR)
	for r.outstanding > 0 {
		if err := r.poll(ctx); err != nil {
			return r.outcome(false), err
		}
	}
	return r.outcome(true), nil
}

// poll waits for one completion; it retires its WR and every earlier one.
func (r *everyNth) poll(ctx context.Context) error {
	const what = "RDMA_WRITE completion"
	call := pollOne(verbs.WCRDMAWrite, what)
	wc, events, err := r.s.waitOne(ctx)
	r.stmts = append(r.stmts, events...)
	if err != nil {
		r.stmts = append(r.stmts, call.Returned("0, again and again: no completion came"))
		return fmt.Errorf("%s: %w", what, err)
	}
	r.s.addCompletion(wc)
	if wc.Status != verbs.WCSuccess {
		r.stmts = append(r.stmts, call.Returned(wcText(wc)))
		r.s.completionFate(wc)
		return &CompletionError{What: what, WC: wc}
	}
	r.s.got("ACK", wc.Opcode.String())
	from := r.reclaimed + 1
	r.outstanding -= int(wc.WRID - r.reclaimed)
	r.reclaimed = wc.WRID
	r.polled = append(r.polled, wc.WRID)
	r.s.set(func() { r.s.lessonRun.nthPolled = len(r.polled) })
	r.stmts = append(r.stmts, call.Returned(fmt.Sprintf("%s; retires wr_id %d..%d, outstanding %d", wcText(wc), from, wc.WRID, r.outstanding)))
	r.pace(ctx)
	return nil
}

// pace pauses when a person watches (the TUI samples the QP meanwhile).
func (r *everyNth) pace(ctx context.Context) {
	if !r.s.cfg.Interactive {
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(everyNthPace):
	}
}

// outcome says what ran; ok: every WRITE went in and completed.
func (r *everyNth) outcome(ok bool) Outcome {
	posted, n := r.posted, len(r.polled)
	results := []KV{result(resReturned, fmt.Sprintf("%d posts into %d slots", posted, r.slots)),
		result(resCompletionsPolled, fmt.Sprintf("%d, wr_id %v", n, r.polled))}
	if !ok {
		return withC(Outcome{Results: results}, r.stmts...)
	}
	note := text.Text{EN: fmt.Sprintf("%d WRITEs went through a send queue of %d slots with %d completions, one per signaled WRITE: each polled completion retired its WRITE and the %d unsignaled ones before it. The program never posted past its count of slots taken since the last polled completion, so ibv_post_send could not say ENOMEM under either rule: rxe frees a slot when its WRITE is acknowledged (sooner than this count), the spec's rule (mlx5, --nic strict) exactly when the completion is polled. Signal at least one WR in every max_send_wr and poll it; every %dth here.", posted, r.slots, n, SignalEvery-1, SignalEvery),
		ZH: fmt.Sprintf("%d 个 WRITE 经过一个 %d 个槽位的发送队列，产生 %d 个完成，每个 signaled WRITE 一个：每 poll 到一个完成，它的 WRITE 和之前的 %d 个 unsignaled WRITE 就一起退役。程序从不超过自己数的“上次 poll 到完成以来占用的槽位”去 post，所以不管哪条规则，ibv_post_send 都不会返回 ENOMEM：rxe 在 WRITE 被确认时就释放槽位（比这个计数更早），规范的规则（mlx5、--nic strict）恰好在 poll 到完成时释放。每 max_send_wr 个 WR 里至少 signal 一个并 poll 它；这里是每 %d 个。", posted, r.slots, n, SignalEvery-1, SignalEvery)}
	return withC(Outcome{Results: results, Note: note}, r.stmts...)
}
