package steps

import (
	"context"
	"fmt"
	"syscall"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The memlock lesson: the client lowers its own RLIMIT_MEMLOCK below one
// page, as a small `ulimit -l` would, then registers its buffer. The
// kernel charges an MR's pages to the process (ib_umem_get) and refuses
// the registration with ENOMEM — unless the process has CAP_IPC_LOCK,
// which root has: then the limit binds nothing and the lesson says so.

// MemlockLessonLimit is the soft RLIMIT_MEMLOCK the lesson sets, in
// bytes: `ulimit -l 1`, less than the one page of the data buffer (0
// would make the kernel answer EPERM rather than ENOMEM: can_do_mlock).
const MemlockLessonLimit = 1024

func lessonMemlock() Lesson {
	return Lesson{Name: "memlock", Notify: NotifySend, by: Client,
		Title:   text.Text{EN: "ibv_reg_mr under a small RLIMIT_MEMLOCK", ZH: "RLIMIT_MEMLOCK 太小时的 ibv_reg_mr"},
		Summary: text.Text{EN: "the client lowers its RLIMIT_MEMLOCK to 1 KiB (ulimit -l 1), then registers its buffer: ibv_reg_mr fails with ENOMEM (not as root: CAP_IPC_LOCK lifts the limit)", ZH: "client 把自己的 RLIMIT_MEMLOCK 降到 1 KiB（ulimit -l 1），再注册 buffer：ibv_reg_mr 返回 ENOMEM（root 除外：CAP_IPC_LOCK 让这个限制失效）"},
		edit:    editMemlock, predict: predictMemlock}
}

func editMemlock(cfg Config, t *tourEdit) {
	if cfg.Role == Client {
		t.insertBefore(IDRegMRData, Step{ID: IDLimitMemlock, Side: Client, Section: SectionMRs, lessonStep: true,
			Title: text.Text{EN: "Lower RLIMIT_MEMLOCK to 1 KiB", ZH: "把 RLIMIT_MEMLOCK 降到 1 KiB"},
			Call:  generic(memlockCalls()...), run: stepLimitMemlock})
	}
	editSetupFailure(IDRegMRData, func() *Expect { return expectErrno("ibv_reg_mr", syscall.ENOMEM) }, restoreMemlockCall())(cfg, t)
}

// memlockCalls are the lesson's setrlimit: the soft limit only, which
// any process may lower.
func memlockCalls() []c.Stmt {
	return []c.Stmt{
		c.Must("getrlimit", c.Call("getrlimit", c.C("RLIMIT_MEMLOCK"), c.C("&memlock"))),
		c.S(c.Assign("old_memlock", c.C("memlock"))),
		c.S(c.Assign("memlock.rlim_cur", c.Dec(MemlockLessonLimit, "1024"))),
		c.Must("setrlimit", c.Call("setrlimit", c.C("RLIMIT_MEMLOCK"), c.C("&memlock"))),
	}
}

func predictMemlock(cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil // the server only listens
	}
	return &Prediction{At: IDRegMRData,
		Question: text.Text{EN: "The client's RLIMIT_MEMLOCK is now 1 KiB and its buffer is one 4 KiB page. What does ibv_reg_mr do?",
			ZH: "client 的 RLIMIT_MEMLOCK 现在是 1 KiB，它的 buffer 是一个 4 KiB 的页。ibv_reg_mr 会怎样？"},
		Choices: []Choice{
			regMRChoice(0, text.Text{EN: "registering would not count against the locked-memory limit", ZH: "注册内存不计入锁定内存的限制"}),
			regMRChoice(syscall.ENOMEM, text.Text{EN: "the pages to pin would pass the process's RLIMIT_MEMLOCK", ZH: "要锁定的页超过了进程的 RLIMIT_MEMLOCK"}),
			regMRChoice(syscall.EPERM, text.Text{EN: "the process would not be allowed to lock memory at all (what a limit of 0 gives)", ZH: "进程根本不允许锁定内存（限制为 0 时才这样）"}),
			regMRChoice(syscall.EINVAL, text.Text{EN: "an argument of the call would be wrong", ZH: "调用的某个参数不对"}),
		}}
}

// restoreMemlockCall is teardown's: the limit the lesson found.
func restoreMemlockCall() c.Stmt {
	return c.Must("setrlimit", c.Call("setrlimit", c.C("RLIMIT_MEMLOCK"), c.C("&old_memlock")))
}

// stepLimitMemlock lowers the process's soft RLIMIT_MEMLOCK through the
// backend; teardown puts the old limit back (tourState.release).
func stepLimitMemlock(_ context.Context, s *Session) (Outcome, error) {
	calls := memlockCalls()
	limiter, ok := s.cfg.Provider.(verbs.PinLimiter)
	if !ok {
		err := &verbs.Error{Func: "setrlimit", Errno: syscall.ENOSYS, Detail: "this backend cannot limit pinned memory"}
		return withC(Outcome{}, calls[0].Returned("0"), calls[1], calls[2], failed(calls[3], err)), err
	}
	restore, err := limiter.LimitPinning(MemlockLessonLimit)
	if err != nil {
		return withC(Outcome{}, calls[0].Returned("0"), calls[1], calls[2], failed(calls[3], err)), err
	}
	s.set(func() { s.pinRestore = restore })
	capLock := verbs.HasCapIPCLock()
	limit := text.Text{EN: fmt.Sprintf("soft %d bytes (ulimit -l 1)", MemlockLessonLimit), ZH: fmt.Sprintf("软限制 %d 字节（ulimit -l 1）", MemlockLessonLimit)}
	out := Outcome{Results: []KV{{Name: resRlimitMemlock, Value: limit}, {Name: resCapIPCLock, Value: yesNo(capLock)}},
		Note: text.Text{EN: "Only this process's soft limit changed, as `ulimit -l 1` would in its shell; rdmatour puts the old limit back at teardown. The kernel charges every MR's pages to the process when ibv_reg_mr pins them.",
			ZH: "只改了本进程的软限制，就像在它的 shell 里执行 `ulimit -l 1`；rdmatour 在 teardown 时恢复原来的限制。ibv_reg_mr 锁定页时，内核把每个 MR 的页都记在进程名下。"}}
	if capLock {
		out.Note = joinNotes(out.Note, capIPCLockNote)
	}
	return withC(out, calls[0].Returned("0"), calls[1], calls[2], calls[3].Returned("0")), nil
}

// capIPCLockNote is what the memlock lesson says to a process that has
// CAP_IPC_LOCK: the registration will succeed.
var capIPCLockNote = text.Text{EN: "This process has CAP_IPC_LOCK (root has it), and the kernel does not hold such a process to RLIMIT_MEMLOCK: the registration will succeed. To see the limit bite, run the client as a user without it, e.g. `setpriv --reuid=nobody --regid=nogroup --clear-groups -- rdmatour client ... --lesson memlock`.",
	ZH: "本进程有 CAP_IPC_LOCK（root 就有），内核不拿 RLIMIT_MEMLOCK 限制这样的进程：注册会成功。想看到限制生效，就用没有这项能力的用户运行 client，例如 `setpriv --reuid=nobody --regid=nogroup --clear-groups -- rdmatour client ... --lesson memlock`。"}
