package steps

import (
	"context"
	"syscall"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The addressing lessons run on the manual track, where the application
// fills in ibv_modify_qp itself: the classic failures at INIT → RTR as
// rxe answers them (measured: TestAddressingFacts). Two are refused by
// ibv_modify_qp; a refused modify leaves the QP in INIT (measured:
// TestManualQPBringUp), so the client calls it again with what
// rdma_init_qp_attr returned and the tour goes on. The third is accepted
// and fails on the first WRITE longer than the peer's path MTU.

// modifyRTRAgainStep is ibv_modify_qp to RTR once more, with
// rdma_init_qp_attr's attributes as they came: the fix, run.
func modifyRTRAgainStep(role Role) Step {
	return Step{ID: IDModifyRTRAgain, Side: role, Section: SectionQP,
		Title: text.Text{EN: "QP: INIT → RTR again, with rdma_init_qp_attr's attributes", ZH: "QP：再次 INIT → RTR，用 rdma_init_qp_attr 给的属性"},
		Call:  modifyGeneric(verbs.QPSRTR),
		run: func(_ context.Context, s *Session) (Outcome, error) {
			out, err := s.modifyQPAt(IDModifyRTRAgain, verbs.QPSRTR)
			if err == nil {
				out.Note = text.Text{EN: "The refused call changed nothing: the QP stayed in INIT, so the same transition runs again, with the attributes as rdma_init_qp_attr filled them in.",
					ZH: "被拒绝的那次调用什么都没改：QP 还在 INIT，所以同一个迁移再做一次，属性用 rdma_init_qp_attr 填好的原样。"}
			}
			return out, err
		}}
}

// editRefusedRTR: the client's modify-rtr is refused with errno, and the
// client calls it again right after.
func editRefusedRTR(errno syscall.Errno) func(Config, *tourEdit) {
	return func(cfg Config, t *tourEdit) {
		if cfg.Role != Client {
			return
		}
		t.edit(IDModifyRTR, func(st *Step) { st.Expect = expectErrno("ibv_modify_qp", errno) })
		t.insertAfter(IDModifyRTR, modifyRTRAgainStep(Client))
	}
}

// modifyChoice: ibv_modify_qp returns errno (0: it succeeds).
func modifyChoice(errno syscall.Errno, means text.Text) Choice {
	ch := errnoChoice("ibv_modify_qp", errno)
	ch.means = means
	return ch
}

func lessonWrongGIDIndex() Lesson {
	return Lesson{Name: "wrong-gid-index", Notify: NotifySend, Track: TrackManual, by: Client,
		Title:   text.Text{EN: "RTR with the wrong GID index", ZH: "RTR 用错了 GID 索引"},
		Summary: text.Text{EN: "the client's address vector names sgid_index 0, the port's first GID, not the one rdma_cm chose: ibv_modify_qp fails with EINVAL on rxe", ZH: "client 的地址向量写了 sgid_index 0，也就是端口的第一条 GID，而不是 rdma_cm 选的那条：在 rxe 上 ibv_modify_qp 返回 EINVAL"},
		preset:  []string{"client:modify-rtr.sgid_index=0"},
		edit:    editRefusedRTR(syscall.EINVAL),
		predict: predictRefusedRTR(text.Text{EN: "The client moves its QP to RTR with sgid_index 0, the first entry of its port's GID table, where rdma_init_qp_attr said 1. What does ibv_modify_qp do?",
			ZH: "client 推 RTR 时用了 sgid_index 0，也就是端口 GID 表的第一条，而 rdma_init_qp_attr 给的是 1。ibv_modify_qp 会怎样？"})}
}

func lessonRTRMask() Lesson {
	return Lesson{Name: "rtr-mask", Notify: NotifySend, Track: TrackManual, by: Client,
		Title:   text.Text{EN: "RTR without IBV_QP_AV in the mask", ZH: "推 RTR 时 mask 里少了 IBV_QP_AV"},
		Summary: text.Text{EN: "the client leaves IBV_QP_AV out of the RTR mask: ibv_modify_qp fails with EINVAL and does not say which bit is missing", ZH: "client 推 RTR 时 mask 里没有 IBV_QP_AV：ibv_modify_qp 返回 EINVAL，也不说缺的是哪一位"},
		preset:  []string{"client:modify-rtr.mask=-IBV_QP_AV"},
		edit:    editRefusedRTR(syscall.EINVAL),
		predict: predictRefusedRTR(text.Text{EN: "The client fills ah_attr in but leaves IBV_QP_AV out of the mask of its INIT → RTR call. What does ibv_modify_qp do?",
			ZH: "client 填好了 ah_attr，但推 INIT → RTR 时 mask 里没有 IBV_QP_AV。ibv_modify_qp 会怎样？"})}
}

// predictRefusedRTR asks the client how its modify-rtr ends; the server
// sees nothing of it.
func predictRefusedRTR(question text.Text) func(Config) *Prediction {
	return func(cfg Config) *Prediction {
		if cfg.Role != Client {
			return nil
		}
		return &Prediction{At: IDModifyRTR, Question: question, Choices: []Choice{
			modifyChoice(0, text.Text{EN: "the QP would go to RTR and the mistake would show only later, on the wire", ZH: "QP 会进入 RTR，错误要到后面、在线路上才显出来"}),
			modifyChoice(syscall.EINVAL, text.Text{EN: "the kernel refuses the attributes at once and the QP stays in INIT", ZH: "内核当场拒绝这些属性，QP 留在 INIT"}),
			modifyChoice(syscall.ENODATA, text.Text{EN: "the GID table would have no entry at that index", ZH: "GID 表在那个索引上没有条目"}),
			modifyChoice(syscall.EPERM, text.Text{EN: "the process would lack a permission", ZH: "进程缺少某种权限"}),
		}}
	}
}

func lessonPathMTU() Lesson {
	return Lesson{Name: "path-mtu-mismatch", Notify: NotifySend, Track: TrackManual, by: Client, messageSize: 2000,
		Title:   text.Text{EN: "A path MTU the peer does not use", ZH: "对端不用的路径 MTU"},
		Summary: text.Text{EN: "the client sets path_mtu 4096 above the port's active 1024, the server keeps 1024: ibv_modify_qp accepts it, and the 2000-byte WRITE ends in remote invalid request error", ZH: "client 把 path_mtu 设成 4096，高于端口的 active 1024，server 仍是 1024：ibv_modify_qp 接受了，2000 字节的 WRITE 以 remote invalid request error 结束"},
		preset:  []string{"client:modify-rtr.path_mtu=IBV_MTU_4096"},
		edit:    editPathMTU,
		predict: predictPathMTU}
}

// editPathMTU: the server's responder refuses the WRITE, both QPs go to
// ERR, and what either side still has queued is flushed.
func editPathMTU(cfg Config, t *tourEdit) {
	if cfg.Role == Server {
		t.edit(IDWaitNotify, func(st *Step) {
			st.Expect = expectPeerFailure()
			st.After = []StepID{IDDisconnectManual}
		})
		return
	}
	t.edit(IDPollWrite, func(st *Step) { st.Expect = expectStatus(verbs.WCRemInvReqErr) })
	t.edit(IDPollNotify, func(st *Step) { st.Expect = expectStatus(verbs.WCWRFlushErr) })
	t.edit(IDDisconnectManual, func(st *Step) { st.After = nil })
}

func predictPathMTU(cfg Config) *Prediction {
	if cfg.Role == Server {
		return &Prediction{At: IDWaitNotify, Choices: serverWaitChoices(),
			Question: text.Text{EN: "The client's QP has path_mtu 4096, this side's 1024. The client then RDMA-WRITEs 2000 bytes and SENDs its notification. How does the server's wait for the notification end?",
				ZH: "client 的 QP 的 path_mtu 是 4096，本端是 1024。client 随后 RDMA WRITE 2000 字节，再 SEND 通知。server 等待通知的这一步会怎样结束？"}}
	}
	return &Prediction{At: IDPollWrite,
		Question: text.Text{EN: "The client moved its QP to RTR with path_mtu 4096, above the port's active MTU of 1024; the server kept 1024. How does the client's 2000-byte RDMA WRITE complete?",
			ZH: "client 推 RTR 时用了 path_mtu 4096，高于端口的 active MTU 1024；server 仍是 1024。client 这个 2000 字节的 RDMA WRITE 的完成状态是什么？"},
		Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRemInvReqErr), statusChoice(verbs.WCRemAccessErr), statusChoice(verbs.WCRetryExcErr)}}
}
