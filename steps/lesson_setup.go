package steps

import (
	"errors"
	"syscall"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The setup-failure lessons: the client's setup fails before it ever
// sends a connect request (no-such-address, memlock,
// remote-write-without-local). Nothing after the failing step can run,
// so the client goes straight to its teardown; the server only listens,
// and lets go once the client's step has failed (in a demo) or at once
// (its own process), since no request will come.

// editSetupFailure makes the client's step at end with expect and cuts
// both tours down to what can still run; first are the statements the
// client's teardown runs before it frees its QP, CQ, PD and id.
func editSetupFailure(at StepID, expect func() *Expect, first ...c.Stmt) func(Config, *tourEdit) {
	return func(cfg Config, t *tourEdit) {
		if cfg.Role == Server {
			t.cutAfter(IDListen)
			t.edit(IDTeardown, func(st *Step) {
				st.After = []StepID{at}
				st.Call = generic(destroyCall("rdma_destroy_id", "listener"), destroyECCall())
			})
			return
		}
		t.edit(at, func(st *Step) { st.Expect = expect() })
		t.cutAfter(at)
		frees := append(first, destroyQPCall(rcTrackOf(cfg.Track).ownsQP), destroyCall("ibv_destroy_cq", "cq"),
			destroyCall("ibv_dealloc_pd", "pd"), destroyCall("rdma_destroy_id", "id"), destroyECCall())
		if at == IDResolveAddr {
			frees = []c.Stmt{destroyCall("rdma_destroy_id", "id"), destroyECCall()} // nothing else exists yet
		}
		t.edit(IDTeardown, func(st *Step) { st.After, st.Call = nil, generic(frees...) })
	}
}

// withClientDataAccess shows the client's reg-mr-data with access a
// (a lesson's preset) before it runs.
func withClientDataAccess(a verbs.Access, rest func(Config, *tourEdit)) func(Config, *tourEdit) {
	return func(cfg Config, t *tourEdit) {
		if cfg.Role == Client {
			tour, _ := TourOf(cfg.Tour)
			was := youWas{"access": c.C(tour.dataAccess(Client).String())}
			t.edit(IDRegMRData, func(st *Step) { _, _, reg := regMRCalls("buf", BufSize, a, was); st.Call = generic(reg) })
		}
		rest(cfg, t)
	}
}

// regMRChoice: ibv_reg_mr returns errno (0: it succeeds); means says
// what that would mean.
func regMRChoice(errno syscall.Errno, means text.Text) Choice {
	ch := errnoChoice("ibv_reg_mr", errno)
	ch.means = means
	return ch
}

func lessonRemoteWriteWithoutLocal() Lesson {
	return Lesson{Name: "remote-write-without-local", Notify: NotifySend, by: Client,
		Title:   text.Text{EN: "REMOTE_WRITE without LOCAL_WRITE", ZH: "有 REMOTE_WRITE 却没有 LOCAL_WRITE"},
		Summary: text.Text{EN: "the client registers its buffer with IBV_ACCESS_REMOTE_WRITE alone: ibv_reg_mr fails with EINVAL, before any connection", ZH: "client 注册 buffer 时只给了 IBV_ACCESS_REMOTE_WRITE：ibv_reg_mr 返回 EINVAL，连接还没开始"},
		preset:  []string{"client:reg-mr-data.access=IBV_ACCESS_REMOTE_WRITE"},
		edit: withClientDataAccess(verbs.AccessRemoteWrite,
			editSetupFailure(IDRegMRData, func() *Expect { return expectErrno("ibv_reg_mr", syscall.EINVAL) })),
		predict: predictRemoteWriteWithoutLocal}
}

func predictRemoteWriteWithoutLocal(cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil // the server only listens
	}
	return &Prediction{At: IDRegMRData,
		Question: text.Text{EN: "The client registers its buffer with IBV_ACCESS_REMOTE_WRITE and nothing else, so that the server could write into it. What does ibv_reg_mr do?",
			ZH: "client 注册 buffer 时只给了 IBV_ACCESS_REMOTE_WRITE，想让 server 能写进来。ibv_reg_mr 会怎样？"},
		Choices: []Choice{
			regMRChoice(0, text.Text{EN: "the MR would exist, writable by a peer but not by this side's own NIC", ZH: "MR 会注册成功：对端能写，本端网卡却不能写"}),
			regMRChoice(syscall.EINVAL, text.Text{EN: "the kernel refuses the combination of access flags itself", ZH: "内核直接拒绝这组访问权限的组合"}),
			regMRChoice(syscall.EACCES, text.Text{EN: "the process would lack a permission to register memory", ZH: "进程没有注册内存的权限"}),
			regMRChoice(syscall.ENOMEM, text.Text{EN: "the memory could not be pinned", ZH: "这块内存无法被锁定"}),
		}}
}

// expectAddrError expects the resolve step to end with
// RDMA_CM_EVENT_ADDR_ERROR and one of these statuses.
func expectAddrError(statuses ...syscall.Errno) *Expect {
	what := verbs.EventAddrError.String()
	return &Expect{What: text.Text{EN: what, ZH: what}, match: func(err error) bool {
		var ce *CMEventError
		if !errors.As(err, &ce) || ce.Got != verbs.EventAddrError {
			return false
		}
		for _, st := range statuses {
			if ce.Status == -int(st) {
				return true
			}
		}
		return false
	}}
}

// BeforeConnection says the lesson's mistake stops the client before it
// ever connects (TopicSetup): a workshop room cannot run it as its plan,
// since no attendee would reach the room.
func (l Lesson) BeforeConnection() bool { return l.Topic == TopicSetup }
