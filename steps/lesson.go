package steps

import (
	"errors"
	"fmt"
	"sort"
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

// Expect is the error a lesson's step should end with. When it does, the
// step counts as done (the error is the point) and the tour goes on.
type Expect struct {
	// What names the error as the learner will see it, e.g.
	// "remote access error".
	What  Text
	match func(error) bool
}

// Matches reports whether err is the expected error; a nil Expect (the
// step expects no error) matches nothing.
func (e *Expect) Matches(err error) bool { return e != nil && err != nil && e.match(err) }

// expectStatus expects a completion with one of these statuses.
func expectStatus(statuses ...verbs.WCStatus) *Expect {
	var what string
	for i, st := range statuses {
		if i > 0 {
			what += " / "
		}
		what += st.String()
	}
	return &Expect{What: Text{what, what}, match: func(err error) bool {
		var ce *CompletionError
		if !errors.As(err, &ce) {
			return false
		}
		for _, st := range statuses {
			if ce.WC.Status == st {
				return true
			}
		}
		return false
	}}
}

// expectErrno expects verbs call fn to fail with errno.
func expectErrno(fn string, errno syscall.Errno) *Expect {
	what := fmt.Sprintf("%s = %s", fn, verbs.ErrnoName(errno))
	return &Expect{What: Text{what, what}, match: func(err error) bool {
		var ve *verbs.Error
		return errors.As(err, &ve) && ve.Func == fn && ve.Errno == errno
	}}
}

// expectPeerFailure is what the server sees when the client's mistake
// broke the connection: its posted RECV flushed (the responder QP went to
// ERR) or the client hanging up.
func expectPeerFailure() *Expect {
	flushed := expectStatus(verbs.WCWRFlushErr)
	return &Expect{
		What: Text{"Work Request Flushed Error or RDMA_CM_EVENT_DISCONNECTED", "Work Request Flushed Error 或 RDMA_CM_EVENT_DISCONNECTED"},
		match: func(err error) bool {
			var ce *CMEventError
			return flushed.match(err) || (errors.As(err, &ce) && ce.Got == verbs.EventDisconnected)
		}}
}

// Lesson is the tour with one deliberate mistake whose real error is the
// point. Both sides run the same lesson (--lesson on each).
type Lesson struct {
	Name    string
	Title   Text
	Summary Text
	// Notify is the notify mode the lesson needs.
	Notify Notify
	// Tour is the tour the lesson changes (the zero value: write).
	Tour TourKind
	// apply changes one side's tour: which steps run and what they expect.
	apply func(cfg Config, tour []Step) []Step
	// server and client are the mistakes steps make on each side.
	server, client Mistake
	// by is the side whose code has the mistake; noMistake for an
	// explanation-only lesson. A plain-tour peer of that side adopts the
	// lesson's expectations (see adoptPeerExpectations).
	by Role
}

// noMistake marks a lesson in which neither side makes a mistake.
const noMistake Role = -1

// Lessons lists every lesson, in teaching order.
func Lessons() []Lesson {
	return append([]Lesson{
		{Name: "no-recv", Notify: NotifySend, by: Server,
			Title:   Text{"SEND with no posted RECV", "没有 post RECV 就 SEND"},
			Summary: Text{"the server skips post_recv: RNR NAKs, then RNR retry counter exceeded (or, with --rnr-retry 7, retries until the late RECV)", "server 跳过 post_recv：RNR NAK，然后 RNR retry counter exceeded（--rnr-retry 7 时一直重试，直到迟到的 RECV）"},
			apply:   applyNoRecv},
		{Name: "bad-rkey", Notify: NotifySend, by: Client,
			Title:   Text{"WRITE with the wrong rkey", "用错 rkey 做 WRITE"},
			Summary: Text{"the client puts its own lkey in wr.rdma.rkey: remote access error, then Work Request Flushed Error", "client 把自己的 lkey 填进 wr.rdma.rkey：remote access error，随后 Work Request Flushed Error"},
			apply:   applyRemoteAccessError, client: mistakeBadRKey},
		{Name: "out-of-bounds", Notify: NotifySend, by: Client,
			Title:   Text{"WRITE past the end of the MR", "WRITE 越过 MR 末尾"},
			Summary: Text{"the client writes at addr+size-8: remote access error, nothing lands", "client 从 addr+size-8 开始写：remote access error，一个字节也不会落地"},
			apply:   applyRemoteAccessError, client: mistakeOutOfBounds},
		{Name: "no-remote-write", Notify: NotifySend, by: Server,
			Title:   Text{"MR without REMOTE_WRITE", "MR 没有 REMOTE_WRITE 权限"},
			Summary: Text{"the server registers its buffer with LOCAL_WRITE only: remote access error", "server 注册 buffer 时只给了 LOCAL_WRITE：remote access error"},
			apply:   applyNoRemoteWrite, server: mistakeNoRemoteWrite},
		{Name: "htonl-address", Notify: NotifySend, by: Server,
			Title:   Text{"64-bit address through htonl", "64 位地址被 htonl 截断"},
			Summary: Text{"the server sends htonl((uintptr_t)buf): the address loses its top 32 bits, remote access error", "server 发送 htonl((uintptr_t)buf)：地址丢了高 32 位，remote access error"},
			apply:   applyRemoteAccessError, server: mistakeHtonlAddress},
		{Name: "post-before-connect", Notify: NotifySend, by: Client,
			Title:   Text{"post_send before the QP is connected", "QP 还没连上就 post_send"},
			Summary: Text{"the client posts its WRITE while the QP is in INIT: ibv_post_send returns EINVAL", "client 在 QP 还处于 INIT 时 post WRITE：ibv_post_send 返回 EINVAL"},
			apply:   applyPostBeforeConnect},
		{Name: "doorbell-ordering", Notify: NotifyDoorbell, by: noMistake,
			Title:   Text{"Is a flag after the data a completion?", "数据后面写个标志位，算完成通知吗？"},
			Summary: Text{"an explanation: why polling a doorbell is not a portable completion guarantee, and what to use instead", "讲解课：为什么轮询 doorbell 不是可移植的完成保证，以及应该用什么"},
			apply:   func(_ Config, tour []Step) []Step { return tour }},
	}, tourLessons()...)
}

// LessonByName finds a lesson.
func LessonByName(name string) (Lesson, error) {
	var names []string
	for _, l := range Lessons() {
		if l.Name == name {
			return l, nil
		}
		names = append(names, l.Name)
	}
	sort.Strings(names)
	return Lesson{}, fmt.Errorf("unknown lesson %q: `rdmatour lessons` lists them (%v)", name, names)
}

func indexOf(tour []Step, id string) int {
	for i, st := range tour {
		if st.ID == id {
			return i
		}
	}
	return -1
}

// edit applies f to the step with this ID, if the tour has it.
func edit(tour []Step, id string, f func(*Step)) {
	if i := indexOf(tour, id); i >= 0 {
		f(&tour[i])
	}
}

func insertAfter(tour []Step, id string, st Step) []Step {
	i := indexOf(tour, id)
	if i < 0 {
		return tour
	}
	out := append([]Step(nil), tour[:i+1]...)
	out = append(out, st)
	return append(out, tour[i+1:]...)
}

func remove(tour []Step, id string) []Step {
	i := indexOf(tour, id)
	if i < 0 {
		return tour
	}
	return append(append([]Step(nil), tour[:i]...), tour[i+1:]...)
}

// applyNoRecv: the server posts no RECV before accepting. With
// rnr_retry_count 0 the client's SEND fails at once; with 7 the RNR NAKs
// go on until the server posts the RECV late.
func applyNoRecv(cfg Config, tour []Step) []Step {
	forever := cfg.RNRRetry == 7
	if cfg.Role == Server {
		tour = remove(tour, "post-recv")
		late := Step{ID: "post-recv-late", Side: Server, Section: SectionQP, Waits: true,
			Title: Text{"Post the RECV, late (after the client's SEND)", "迟到的 post_recv（等 client 的 SEND 之后）"},
			Call:  postRecvGeneric(), run: stepPostRecvLate}
		if forever {
			late.After = []string{"post-send"} // while the SEND is being RNR-NAKed
		} else {
			late.After = []string{"poll-notify"} // after the SEND has failed
		}
		tour = insertAfter(tour, "get-established", late)
		if !forever {
			edit(tour, "wait-notify", func(st *Step) {
				st.After = []string{"disconnect"}
				st.Expect = expectPeerFailure()
				st.Expect.What = Text{"no SEND ever arrives: the client hangs up (" + st.Expect.What.EN + ")",
					"SEND 永远不会到达：client 断开了（" + st.Expect.What.ZH + "）"}
			})
		}
		return tour
	}
	if forever {
		edit(tour, "poll-notify", func(st *Step) { st.After = []string{"post-recv-late"} })
		return tour
	}
	edit(tour, "poll-notify", func(st *Step) { st.Expect = expectStatus(verbs.WCRNRRetryExcErr) })
	edit(tour, "disconnect", func(st *Step) { st.After = nil })
	return tour
}

// applyRemoteAccessError: one of the four ways to make the responder
// refuse the WRITE. The mistake itself is made by the step functions
// through the lesson's Mistake hook; here the tour learns which errors to expect.
func applyRemoteAccessError(cfg Config, tour []Step) []Step {
	if cfg.Role == Server {
		edit(tour, "wait-notify", func(st *Step) {
			st.Expect = expectPeerFailure()
			st.After = []string{"disconnect"}
		})
		return tour
	}
	edit(tour, "poll-write", func(st *Step) { st.Expect = expectStatus(verbs.WCRemAccessErr) })
	edit(tour, "poll-notify", func(st *Step) { st.Expect = expectStatus(verbs.WCWRFlushErr) })
	edit(tour, "disconnect", func(st *Step) { st.After = nil })
	return tour
}

// applyNoRemoteWrite: the server registers its data buffer without
// IBV_ACCESS_REMOTE_WRITE, and shows so before the step runs.
func applyNoRemoteWrite(cfg Config, tour []Step) []Step {
	if cfg.Role == Server {
		edit(tour, "reg-mr-data", func(st *Step) { st.Call = regMRGeneric("buf", BufSize, mistakeNoRemoteWrite.DataAccess) })
	}
	return applyRemoteAccessError(cfg, tour)
}

// applyPostBeforeConnect: the client posts its WRITE right after
// registering memory, while the QP is still in INIT.
func applyPostBeforeConnect(cfg Config, tour []Step) []Step {
	if cfg.Role == Server {
		return tour
	}
	early := Step{ID: "post-write-early", Side: Client, Section: SectionQP,
		Title:  Text{"post_send while the QP is in INIT", "QP 还在 INIT 就 post_send"},
		Call:   postSendGeneric(verbs.WRRDMAWrite, "buf", ", before rdma_connect"),
		Expect: expectErrno("ibv_post_send", syscall.EINVAL), run: stepPostWriteEarly}
	return insertAfter(tour, "reg-mr-msg", early)
}
