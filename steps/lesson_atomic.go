package steps

import (
	"fmt"
	"syscall"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The atomic tour's lessons, measured like the read tour's (lesson_read.go).

// noRemoteAtomic is the server's mistake of no-remote-atomic: every
// remote access flag but the one the atomics need.
var noRemoteAtomic = verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead

func lessonAtomicUnaligned() Lesson {
	return Lesson{Name: "atomic-unaligned", Tour: TourAtomic, by: Client,
		Title:   text.Text{EN: "An atomic on an unaligned address", ZH: "原子操作的地址没有对齐"},
		Summary: text.Text{EN: "the client aims FETCH_AND_ADD 4 bytes into the counter: ibv_post_send returns EINVAL and nothing is sent", ZH: "client 把 FETCH_AND_ADD 指向计数器内 4 字节处：ibv_post_send 返回 EINVAL，什么都不发送"},
		edit:    editAtomicUnaligned, client: Mistake{AtomicOffset: 4},
		predict: clientAsks(&Prediction{At: IDPostFetchAdd,
			Question: text.Text{EN: "The client aims its FETCH_AND_ADD at remote_addr + 4. What does ibv_post_send do?",
				ZH: "client 把 FETCH_AND_ADD 指向 remote_addr + 4。ibv_post_send 会怎样？"},
			Choices: []Choice{errnoChoice("ibv_post_send", 0), errnoChoice("ibv_post_send", syscall.EINVAL), errnoChoice("ibv_post_send", syscall.EFAULT), errnoChoice("ibv_post_send", syscall.EOPNOTSUPP)}})}
}

func lessonNoRemoteAtomic() Lesson {
	return Lesson{Name: "no-remote-atomic", Tour: TourAtomic, by: Server,
		Title:   text.Text{EN: "An atomic on an MR without REMOTE_ATOMIC", ZH: "对没有 REMOTE_ATOMIC 权限的 MR 做原子操作"},
		Summary: text.Text{EN: "the server registers its counter without IBV_ACCESS_REMOTE_ATOMIC: remote access error, then Work Request Flushed Error", ZH: "server 注册计数器时没给 IBV_ACCESS_REMOTE_ATOMIC：remote access error，随后 Work Request Flushed Error"},
		edit:    withDataAccess(noRemoteAtomic, editNoRemoteAtomic), preset: []string{"server:reg-mr-data.access=" + noRemoteAtomic.String()},
		predict: clientAsks(&Prediction{At: IDPollFetchAdd,
			Question: text.Text{EN: "The server registered its counter with IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ. How does the client's FETCH_AND_ADD complete?",
				ZH: "server 注册计数器时给的是 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ。client 的 FETCH_AND_ADD 的完成状态是什么？"},
			Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRemAccessErr), statusChoice(verbs.WCRemInvReqErr), statusChoice(verbs.WCLocProtErr)}})}
}

// editAtomicUnaligned: the FETCH_AND_ADD is refused at post (nothing to
// poll); the CMP_AND_SWP behind it still runs on an intact QP.
func editAtomicUnaligned(cfg Config, t *tourEdit) {
	if cfg.Role == Server {
		return
	}
	t.edit(IDPostFetchAdd, func(st *Step) { st.Expect = expectErrno("ibv_post_send", syscall.EINVAL) })
	t.remove(IDPollFetchAdd)
}

func editNoRemoteAtomic(cfg Config, t *tourEdit) {
	if cfg.Role == Client {
		t.edit(IDPollFetchAdd, func(st *Step) { st.Expect = expectStatus(verbs.WCRemAccessErr) })
		t.edit(IDPollCmpSwap, func(st *Step) { st.Expect = expectStatus(verbs.WCWRFlushErr) })
	}
}

// atomicTarget is where the FETCH_AND_ADD goes: the counter, or (the
// atomic-unaligned lesson) 4 bytes into it.
func (s *Session) atomicTarget(t Target) Target {
	off := s.mistake().AtomicOffset
	if off == 0 {
		return t
	}
	t.Addr += off
	t.AddrC = c.Hex(t.Addr, fmt.Sprintf("remote_addr + %d", off))
	t.Why = fmt.Sprintf("remote_addr + %d is not 8-byte aligned", off)
	return t
}
