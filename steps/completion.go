package steps

import (
	"context"
	"fmt"
	"strings"
	"syscall"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Completion is how a side learns of its completions: by polling the CQ
// (the seed's loop around ibv_poll_cq) or through a completion channel,
// sleeping until the NIC raises an event (--completion event). In event
// mode the tour gains two steps — the channel before the CQ, the first
// arm after it — and every wait for a completion polls first, then
// sleeps in ibv_get_cq_event, acks the event, re-arms, and polls again:
// re-arming before draining, so a completion landing in between raises
// the next event rather than none (see concept-completion-channel).
type Completion int

const (
	CompletionPoll  Completion = iota // poll the CQ (the default)
	CompletionEvent                   // a completion channel
)

func (m Completion) String() string {
	switch m {
	case CompletionPoll:
		return "poll"
	case CompletionEvent:
		return "event"
	}
	return ""
}

// ParseCompletion reads --completion.
func ParseCompletion(s string) (Completion, error) {
	switch strings.ToLower(s) {
	case "poll":
		return CompletionPoll, nil
	case "event":
		return CompletionEvent, nil
	}
	return 0, fmt.Errorf("unknown completion mode %q: use poll or event", s)
}

// withCompletion is tour with the completion channel's steps when cfg
// asks for events (RC tours: Validate refuses the ud tour).
func withCompletion(cfg Config, tour []Step) []Step {
	if cfg.Completion != CompletionEvent || indexOf(tour, IDCreateCQ) < 0 {
		return tour
	}
	t := newTourEdit(cfg.Role, tour)
	addCompletionSteps(cfg.Role, t, true)
	out, _ := t.Result() // both IDs are there: checked above
	return out
}

// addCompletionSteps puts the channel before create-cq, makes the CQ on
// it and (arm) arms it after: --completion event, and the lost-wakeup
// lesson, whose loop arms only later.
func addCompletionSteps(role Role, t *tourEdit, arm bool) {
	if t.has(IDCreateCompChannel) {
		return // --completion event already did
	}
	t.insertBefore(IDCreateCQ, Step{ID: IDCreateCompChannel, Side: role, Section: SectionCQ,
		Title: text.Text{EN: "Create a completion channel", ZH: "创建完成通道"},
		Call:  generic(createCompChannelCall()), run: stepCreateCompChannel})
	t.edit(IDCreateCQ, func(st *Step) { st.Call = generic(createCQOnChannelCall(CQDepth)) })
	if !arm {
		return
	}
	t.insertAfter(IDCreateCQ, Step{ID: IDReqNotifyCQ, Side: role, Section: SectionCQ,
		Title: text.Text{EN: "Arm the CQ for its next completion", ZH: "给 CQ 挂上通知，等下一个完成"},
		Call:  generic(reqNotifyCall("cq")), run: stepReqNotify})
}

func createCompChannelCall() c.Stmt {
	return c.MustPtr("ibv_create_comp_channel", "channel", c.Call("ibv_create_comp_channel", c.C("id->verbs")))
}

func createCQOnChannelCall(cqe int) c.Stmt {
	depth := c.Dec(CQDepth, "CQ_DEPTH")
	if cqe != CQDepth {
		depth = c.Dec(int64(cqe), "")
	}
	return c.MustPtr("ibv_create_cq", "cq", c.Call("ibv_create_cq", c.C("id->verbs"), depth, c.C("NULL"), c.C("channel"), c.C("0")))
}

func reqNotifyCall(cq string) c.Stmt {
	return c.Must("ibv_req_notify_cq", c.Call("ibv_req_notify_cq", c.C(cq), c.C("0")))
}

func stepCreateCompChannel(_ context.Context, s *Session) (Outcome, error) {
	call := createCompChannelCall()
	maker, ok := s.dev.(verbs.CompChannelDevice)
	if !ok {
		err := &verbs.Error{Func: "ibv_create_comp_channel", Errno: syscall.ENOSYS, Detail: "this backend has no completion channels"}
		return withC(Outcome{}, failed(call, err)), err
	}
	cc, err := maker.CreateCompChannel()
	if err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.set(func() { s.cc = cc })
	fd, kv := fmt.Sprint(cc.FD()), KV{Name: resChannelFD, Value: valSimulated}
	if cc.FD() >= 0 {
		kv = result(resChannelFD, fd)
	} else {
		fd = "-1: simulated"
	}
	return withC(Outcome{Results: []KV{kv},
		Note: text.Text{EN: "The channel is a file descriptor the NIC's driver makes readable when an armed CQ has had a completion; a program can sleep on it (or poll(2) it with other fds) instead of spinning on ibv_poll_cq.",
			ZH: "完成通道是一个文件描述符：挂了通知的 CQ 有了完成时，驱动让它变为可读；程序可以睡在它上面（或和别的 fd 一起 poll(2)），不必空转调用 ibv_poll_cq。"}},
		call.Returned(fmt.Sprintf("{ .fd = %s }", fd))), nil
}

func stepReqNotify(_ context.Context, s *Session) (Outcome, error) {
	call := reqNotifyCall("cq")
	ncq, ok := s.cq.(verbs.NotifyCQ)
	if !ok {
		err := &verbs.Error{Func: "ibv_req_notify_cq", Errno: syscall.EINVAL, Detail: "the CQ has no completion channel"}
		return withC(Outcome{}, failed(call, err)), err
	}
	if err := ncq.ReqNotify(false); err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	return withC(Outcome{Note: text.Text{EN: "Armed: the next completion added to this CQ raises one event on the channel, then the CQ is disarmed. Completions already in the CQ raise none, so a wait polls first.",
		ZH: "通知已挂上：之后加入这个 CQ 的下一个完成会在通道上产生一个事件，随后通知就摘掉了。已经在 CQ 里的完成不会产生事件，所以等待之前要先 poll。"}},
		call.Returned("0")), nil
}

// awaitEvent sleeps in ibv_get_cq_event until the CQ's event or ctx's
// end, then acks it and re-arms: the statements it ran, for the screen.
func (s *Session) awaitEvent(ctx context.Context) ([]c.Stmt, error) {
	get := c.Must("ibv_get_cq_event", c.Call("ibv_get_cq_event", c.C("channel"), c.C("&ev_cq"), c.C("&ev_ctx")))
	got, err := s.cc.GetCQEvent(ctx)
	if err != nil {
		return []c.Stmt{get.Returned("-1: no event came")}, err
	}
	got.AckEvents(1)
	stmts := []c.Stmt{get.Returned("0: ev_cq = cq"), c.S(c.Call("ibv_ack_cq_events", c.C("ev_cq"), c.C("1")))}
	rearm := reqNotifyCall("ev_cq")
	if err := got.ReqNotify(false); err != nil {
		return append(stmts, failed(rearm, err)), err
	}
	return append(stmts, rearm.Returned("0")), nil
}

// waitOne is one completion: verbs.PollOne without a channel; with one,
// poll, and while the CQ is empty, sleep for its event, ack, re-arm and
// poll again. events are the statements the event waits ran.
func (s *Session) waitOne(ctx context.Context) (verbs.WC, []c.Stmt, error) {
	if s.cc == nil {
		wc, err := verbs.PollOne(ctx, s.cq)
		return wc, nil, err
	}
	var events []c.Stmt
	for {
		wcs, err := s.cq.Poll(1)
		if err != nil || len(wcs) == 1 {
			return firstWC(wcs), events, err
		}
		events = append(events, pollOne(0, "").Returned("0: empty, so wait for the event"))
		more, err := s.awaitEvent(ctx)
		events = append(events, more...)
		if err != nil {
			return verbs.WC{}, events, err
		}
	}
}

func firstWC(wcs []verbs.WC) verbs.WC {
	if len(wcs) == 0 {
		return verbs.WC{}
	}
	return wcs[0]
}

// prependC puts stmts before what out ran.
func prependC(out Outcome, stmts []c.Stmt) Outcome {
	if len(stmts) == 0 {
		return out
	}
	all := append(append([]c.Stmt(nil), stmts...), out.C...)
	out.C = nil
	return withC(out, all...)
}
