package steps

import (
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

// The post-before-connect lesson: the client posts its WRITE right after
// registering memory, while the QP is still in INIT. Its extra step is
// stepPostWriteEarly (datapath.go).

func lessonPostBeforeConnect() Lesson {
	return Lesson{Name: "post-before-connect", Notify: NotifySend, by: Client,
		Title:   Text{"post_send before the QP is connected", "QP 还没连上就 post_send"},
		Summary: Text{"the client posts its WRITE while the QP is in INIT: ibv_post_send returns EINVAL", "client 在 QP 还处于 INIT 时 post WRITE：ibv_post_send 返回 EINVAL"},
		edit:    editPostBeforeConnect, predict: predictPostBeforeConnect}
}

func editPostBeforeConnect(cfg Config, t *tourEdit) {
	if cfg.Role == Server {
		return
	}
	t.insertAfter(IDRegMRMsg, Step{ID: IDPostWriteEarly, Side: Client, Section: SectionQP,
		Title:  Text{"post_send while the QP is in INIT", "QP 还在 INIT 就 post_send"},
		Call:   postSendGeneric(verbs.WRRDMAWrite, "buf", ", before rdma_connect"),
		Expect: expectErrno("ibv_post_send", syscall.EINVAL), run: stepPostWriteEarly})
}

func predictPostBeforeConnect(cfg Config) *Prediction {
	if cfg.Role != Client {
		return nil // the server's tour is the plain one
	}
	return &Prediction{At: IDPostWriteEarly,
		Question: Text{"The client posts its RDMA WRITE while its QP is still in INIT (before rdma_connect). What does ibv_post_send do?",
			"client 在 QP 还处于 INIT（rdma_connect 之前）时就 post 了 RDMA WRITE。ibv_post_send 会怎样？"},
		Choices: []Choice{
			errnoChoice("ibv_post_send", 0),
			errnoChoice("ibv_post_send", syscall.EINVAL),
			errnoChoice("ibv_post_send", syscall.EAGAIN),
			errnoChoice("ibv_post_send", syscall.ENOTCONN),
		}}
}
