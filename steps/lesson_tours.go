package steps

import (
	"fmt"
	"syscall"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs"
)

// The lessons of the read and atomic tours, with the errors measured on
// Soft-RoCE (verbs/rdmacore TestReadAtomicErrors) and reproduced by the
// simulated NIC (verbs/sim TestReadAtomicErrorsLikeRxe).

// tourLessons are the lessons that run on the read and atomic tours.
func tourLessons() []Lesson {
	return []Lesson{
		{Name: "no-remote-read", Tour: TourRead, by: Server,
			Title:   Text{"READ from an MR without REMOTE_READ", "READ 一个没有 REMOTE_READ 权限的 MR"},
			Summary: Text{"the server registers its buffer without IBV_ACCESS_REMOTE_READ: the client's READ fails with remote access error", "server 注册 buffer 时没给 IBV_ACCESS_REMOTE_READ：client 的 READ 以 remote access error 失败"},
			apply:   withDataAccess(noRemoteRead.DataAccess, applyReadError(verbs.WCRemAccessErr)), server: noRemoteRead},
		{Name: "read-depth-zero", Tour: TourRead, by: Client,
			Title:   Text{"READ after connecting with initiator_depth 0", "用 initiator_depth 0 连接之后再 READ"},
			Summary: Text{"the client connects with initiator_depth 0: rdma_cm gives the server's QP no remote read, and the READ fails with remote invalid request error", "client 用 initiator_depth 0 连接：rdma_cm 不给 server 的 QP 远端读权限，READ 以 remote invalid request error 失败"},
			apply:   applyReadError(verbs.WCRemInvReqErr), client: Mistake{ZeroInitiatorDepth: true}},
		{Name: "atomic-unaligned", Tour: TourAtomic, by: Client,
			Title:   Text{"An atomic on an unaligned address", "原子操作的地址没有对齐"},
			Summary: Text{"the client aims FETCH_AND_ADD 4 bytes into the counter: ibv_post_send returns EINVAL and nothing is sent", "client 把 FETCH_AND_ADD 指向计数器内 4 字节处：ibv_post_send 返回 EINVAL，什么都不发送"},
			apply:   applyAtomicUnaligned, client: Mistake{AtomicOffset: 4}},
		{Name: "no-remote-atomic", Tour: TourAtomic, by: Server,
			Title:   Text{"An atomic on an MR without REMOTE_ATOMIC", "对没有 REMOTE_ATOMIC 权限的 MR 做原子操作"},
			Summary: Text{"the server registers its counter without IBV_ACCESS_REMOTE_ATOMIC: remote access error, then Work Request Flushed Error", "server 注册计数器时没给 IBV_ACCESS_REMOTE_ATOMIC：remote access error，随后 Work Request Flushed Error"},
			apply:   withDataAccess(noRemoteAtomic.DataAccess, applyNoRemoteAtomic), server: noRemoteAtomic},
	}
}

// The server's mistakes of no-remote-read and no-remote-atomic: one
// remote access flag short.
var (
	noRemoteRead   = Mistake{DataAccess: verbs.AccessLocalWrite | verbs.AccessRemoteWrite}
	noRemoteAtomic = Mistake{DataAccess: verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead}
)

// withDataAccess shows the lesson's access flags on the server's
// reg-mr-data before it runs, then applies the rest of the lesson.
func withDataAccess(a verbs.Access, apply func(Config, []Step) []Step) func(Config, []Step) []Step {
	return func(cfg Config, tour []Step) []Step {
		if cfg.Role == Server {
			edit(tour, "reg-mr-data", func(st *Step) { st.Call = regMRGeneric("buf", BufSize, a) })
		}
		return apply(cfg, tour)
	}
}

// applyReadError: the client's READ fails with status; the server waits
// for the hang-up as in the plain read tour.
func applyReadError(status verbs.WCStatus) func(Config, []Step) []Step {
	return func(cfg Config, tour []Step) []Step {
		if cfg.Role == Client {
			edit(tour, "poll-read", func(st *Step) { st.Expect = expectStatus(status) })
		}
		return tour
	}
}

// applyAtomicUnaligned: the FETCH_AND_ADD is refused at post (nothing to
// poll); the CMP_AND_SWP behind it still runs on an intact QP.
func applyAtomicUnaligned(cfg Config, tour []Step) []Step {
	if cfg.Role == Server {
		return tour
	}
	edit(tour, "post-fetch-add", func(st *Step) { st.Expect = expectErrno("ibv_post_send", syscall.EINVAL) })
	return remove(tour, "poll-fetch-add")
}

func applyNoRemoteAtomic(cfg Config, tour []Step) []Step {
	if cfg.Role == Client {
		edit(tour, "poll-fetch-add", func(st *Step) { st.Expect = expectStatus(verbs.WCRemAccessErr) })
		edit(tour, "poll-cmp-swap", func(st *Step) { st.Expect = expectStatus(verbs.WCWRFlushErr) })
	}
	return tour
}

// baseTour is the tour of kind for role before any lesson: the base a
// lesson changes.
func baseTour(role Role, n Notify, kind TourKind) []Step {
	if kind == TourUD {
		return udTour(role)
	}
	tour := serverTour()
	if role == Client {
		tour = clientTour(n)
	}
	switch kind {
	case TourRead:
		tour = readTour(role, tour)
	case TourAtomic:
		tour = atomicTour(role, tour)
	}
	return tour
}

// missingAccessNote is the note on reg-mr-data when a lesson leaves out
// a remote access flag the tour needs.
func missingAccessNote(kind TourKind, got verbs.Access) Text {
	want := remoteAccess
	if kind == TourAtomic {
		want |= verbs.AccessRemoteAtomic
	}
	missing := (want &^ got).String()
	return Text{fmt.Sprintf("The mistake of this lesson: no %s. Registration succeeds; the client's operation will not.", missing),
		fmt.Sprintf("本课故意犯的错：没有 %s。注册会成功，client 的操作不会。", missing)}
}

// initiatorDepth is this side's initiator_depth for rdma_connect.
func (s *Session) initiatorDepth() uint8 {
	if s.mistake().ZeroInitiatorDepth {
		return 0
	}
	return 1
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

// tourLessonPredictions are the questions of the tour lessons (client
// side: that is where each answer shows).
func tourLessonPrediction(l Lesson, cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil
	}
	switch l.Name {
	case "no-remote-read":
		return &Prediction{At: "poll-read",
			Question: Text{"The server registered its buffer with IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, without REMOTE_READ. How does the client's RDMA READ complete?",
				"server 注册 buffer 时给的是 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE，没有 REMOTE_READ。client 的 RDMA READ 的完成状态是什么？"},
			Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRemAccessErr), statusChoice(verbs.WCLocProtErr), statusChoice(verbs.WCRemInvReqErr)}}
	case "read-depth-zero":
		return &Prediction{At: "poll-read",
			Question: Text{"The client connected with initiator_depth 0 (the server accepted with responder_resources 1), then posts one RDMA READ. How does it complete?",
				"client 用 initiator_depth 0 连接（server 用 responder_resources 1 accept），然后 post 一个 RDMA READ。它的完成状态是什么？"},
			Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRemAccessErr), statusChoice(verbs.WCRemInvReqErr), statusChoice(verbs.WCRetryExcErr)}}
	case "atomic-unaligned":
		return &Prediction{At: "post-fetch-add",
			Question: Text{"The client aims its FETCH_AND_ADD at remote_addr + 4. What does ibv_post_send do?",
				"client 把 FETCH_AND_ADD 指向 remote_addr + 4。ibv_post_send 会怎样？"},
			Choices: []Choice{errnoChoice("ibv_post_send", 0), errnoChoice("ibv_post_send", syscall.EINVAL), errnoChoice("ibv_post_send", syscall.EFAULT), errnoChoice("ibv_post_send", syscall.EOPNOTSUPP)}}
	case "no-remote-atomic":
		return &Prediction{At: "poll-fetch-add",
			Question: Text{"The server registered its counter with IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ. How does the client's FETCH_AND_ADD complete?",
				"server 注册计数器时给的是 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ。client 的 FETCH_AND_ADD 的完成状态是什么？"},
			Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRemAccessErr), statusChoice(verbs.WCRemInvReqErr), statusChoice(verbs.WCLocProtErr)}}
	}
	return nil
}
