package steps

import (
	"context"
	"syscall"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The post-before-connect lesson: the client posts its WRITE right after
// registering memory, while the QP is still in INIT. Its extra step is
// stepPostWriteEarly, below.

func lessonPostBeforeConnect() Lesson {
	return Lesson{Name: "post-before-connect", Notify: NotifySend, by: Client,
		Title:   text.Text{EN: "post_send before the QP is connected", ZH: "QP 还没连上就 post_send"},
		Summary: text.Text{EN: "the client posts its WRITE while the QP is in INIT: ibv_post_send returns EINVAL", ZH: "client 在 QP 还处于 INIT 时 post WRITE：ibv_post_send 返回 EINVAL"},
		edit:    editPostBeforeConnect, predict: predictPostBeforeConnect}
}

func editPostBeforeConnect(cfg Config, t *tourEdit) {
	if cfg.Role == Server {
		return
	}
	t.insertAfter(IDRegMRMsg, Step{ID: IDPostWriteEarly, Side: Client, Section: SectionQP,
		Title:  text.Text{EN: "post_send while the QP is in INIT", ZH: "QP 还在 INIT 就 post_send"},
		Call:   postSendGeneric(verbs.WRRDMAWrite, "buf", ", before rdma_connect"),
		Expect: expectErrno("ibv_post_send", syscall.EINVAL), run: stepPostWriteEarly})
}

func predictPostBeforeConnect(cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil // the server's tour is the plain one
	}
	return &Prediction{At: IDPostWriteEarly,
		Question: text.Text{EN: "The client posts its RDMA WRITE while its QP is still in INIT (before rdma_connect). What does ibv_post_send do?",
			ZH: "client 在 QP 还处于 INIT（rdma_connect 之前）时就 post 了 RDMA WRITE。ibv_post_send 会怎样？"},
		Choices: []Choice{
			errnoChoice("ibv_post_send", 0),
			errnoChoice("ibv_post_send", syscall.EINVAL),
			errnoChoice("ibv_post_send", syscall.EAGAIN),
			errnoChoice("ibv_post_send", syscall.ENOTCONN),
		}}
}

// stepPostWriteEarly is the post-before-connect lesson's mistake: a WRITE
// posted while the QP is still in INIT (no remote_info yet either).
func stepPostWriteEarly(_ context.Context, s *Session) (Outcome, error) {
	state := s.recordQPState()
	// Zero bytes and unsignaled, so that it cannot disturb the rest of the
	// tour: measured on rxe (rdma-core 44, Linux 6.1), a WR rejected here
	// with EINVAL still sits in the send queue and runs once the QP reaches
	// RTS. A zero-length WRITE needs no valid rkey (IBA C9-88), and an
	// unsignaled success leaves no completion.
	wr := verbs.SendWR{WRID: WRIDEarly, Opcode: verbs.WRRDMAWrite,
		SGList: []verbs.SGE{{Addr: s.mrData.Addr(), Length: 0, LKey: s.mrData.LKey()}}}
	zero := Target{AddrC: c.Hex(0, "0"), RKeyC: c.Hex(0, "0")}
	call := postSendCall(wr, "buf", c.Dec(0, ""), zero, "ibv_post_send before rdma_connect")
	if err := s.qp.PostSend(wr); err != nil {
		return withC(Outcome{Results: []KV{result(resQPState, state), result(resReturned, errnoText(err))},
			Note: text.Text{EN: "The error is the return value of ibv_post_send, not a completion. On rxe the WR was queued anyway and runs with the next post after the QP reaches RTS: watch a second WRITE on the wire (this one is zero bytes and unsignaled, so it completes silently). The simulated NIC does the same.",
				ZH: "错误是 ibv_post_send 的返回值，不是完成。rxe 上这个 WR 其实已经入队，QP 到 RTS 之后随下一次 post 一起执行：线上报文里会多出一个 WRITE（它是 0 字节、unsignaled 的，所以悄无声息地完成）。模拟网卡也这样做。"}}, call.Returned(errnoText(err)+"; QP state "+state)), err
	}
	return withC(Outcome{}, call.Returned("0; QP state "+state)), nil
}
