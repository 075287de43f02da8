package steps

import (
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

// The questions each lesson asks before it runs, one per side that sees
// the answer on its own screen. No question names or hints at its answer;
// the choices are judged by what the answering step actually ended with.

// predictionFor is the question lesson l asks the side cfg runs; nil for
// none.
func predictionFor(l Lesson, cfg Config) *Prediction {
	switch l.Name {
	case "no-recv":
		return predictNoRecv(cfg)
	case "bad-rkey", "out-of-bounds", "no-remote-write", "htonl-address":
		return predictRemoteAccess(l.Name, cfg.Role)
	case "post-before-connect":
		if cfg.Role != Client {
			return nil // the server's tour is the plain one
		}
		return &Prediction{At: "post-write-early",
			Question: Text{"The client posts its RDMA WRITE while its QP is still in INIT (before rdma_connect). What does ibv_post_send do?",
				"client 在 QP 还处于 INIT（rdma_connect 之前）时就 post 了 RDMA WRITE。ibv_post_send 会怎样？"},
			Choices: []Choice{
				errnoChoice("ibv_post_send", 0),
				errnoChoice("ibv_post_send", syscall.EINVAL),
				errnoChoice("ibv_post_send", syscall.EAGAIN),
				errnoChoice("ibv_post_send", syscall.ENOTCONN),
			}}
	case "doorbell-ordering":
		if cfg.Role != Server {
			return nil // the answer shows on the server
		}
		return &Prediction{At: "wait-notify",
			Question: Text{"The client WRITEs the message, then 8 bytes to the doorbell. When the server's CPU sees doorbell = 1, what is in its buffer?",
				"client 先 WRITE 消息，再往 doorbell 写 8 字节。server 的 CPU 看到 doorbell = 1 时，buffer 里是什么？"},
			Choices: []Choice{
				landedChoice(true, Text{"the whole message", "完整的消息"}),
				landedChoice(false, Text{"nothing yet: still zeros", "还什么都没有：全是 0"}),
				failedChoice(Text{"the wait fails with an error", "等待以错误告终"}),
			}}
	}
	return tourLessonPrediction(l, cfg)
}

// serverWaitChoices are the ways the server's wait for the client's
// notification can end.
func serverWaitChoices() []Choice {
	return []Choice{
		landedChoice(true, Text{"the client's message arrives and the RECV completes", "client 的消息到达，RECV 完成"}),
		statusChoice(verbs.WCWRFlushErr),
		statusChoice(verbs.WCRemAccessErr),
		eventChoice(verbs.EventDisconnected, Text{"the client hangs up", "client 断开了连接"}),
	}
}

func predictNoRecv(cfg Config) *Prediction {
	retry := Text{"rnr_retry_count is 0", "rnr_retry_count 是 0"}
	if cfg.RNRRetry == MaxRNRRetry {
		retry = Text{"rnr_retry_count is 7", "rnr_retry_count 是 7"}
	}
	if cfg.Role == Server {
		return &Prediction{At: "wait-notify", Choices: serverWaitChoices(),
			Question: Text{"The server posts its RECV only after the client's SEND has arrived, and " + retry.EN + ". How does its wait for the client's notification end?",
				"server 等 client 的 SEND 到了之后才 post RECV，而且 " + retry.ZH + "。它等待 client 通知的这一步会怎样结束？"}}
	}
	return &Prediction{At: "poll-notify",
		Question: Text{"The server has no RECV posted when the client's SEND arrives, and " + retry.EN + ". How does the SEND complete?",
			"client 的 SEND 到达时，server 还没有 post 任何 RECV，而且 " + retry.ZH + "。这个 SEND 的完成状态是什么？"},
		Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRNRRetryExcErr), statusChoice(verbs.WCRetryExcErr), statusChoice(verbs.WCRemOpErr)}}
}

// remoteAccessSetups say, per lesson, what is wrong, from each side.
var remoteAccessSetups = map[string][2]Text{ // [server, client]
	"bad-rkey": {
		{"The client puts its own lkey where the server's rkey belongs.", "client 把自己的 lkey 填在了 server 的 rkey 该在的位置。"},
		{"The client puts its own lkey where the server's rkey belongs.", "client 把自己的 lkey 填在了 server 的 rkey 该在的位置。"}},
	"out-of-bounds": {
		{"The client WRITEs its message starting 8 bytes before the end of the server's MR.", "client 从 server 的 MR 末尾前 8 字节处开始 WRITE 它的消息。"},
		{"The client WRITEs its message starting 8 bytes before the end of the server's MR.", "client 从 server 的 MR 末尾前 8 字节处开始 WRITE 它的消息。"}},
	"no-remote-write": {
		{"The server registered its buffer with IBV_ACCESS_LOCAL_WRITE only.", "server 注册 buffer 时只给了 IBV_ACCESS_LOCAL_WRITE。"},
		{"The server registered its buffer with IBV_ACCESS_LOCAL_WRITE only.", "server 注册 buffer 时只给了 IBV_ACCESS_LOCAL_WRITE。"}},
	"htonl-address": {
		{"The server sends its buffer address as htonl((uintptr_t)buf).", "server 以 htonl((uintptr_t)buf) 的形式发送 buffer 地址。"},
		{"The server sent its buffer address as htonl((uintptr_t)buf).", "server 以 htonl((uintptr_t)buf) 的形式发来了 buffer 地址。"}},
}

func predictRemoteAccess(lesson string, role Role) *Prediction {
	setup := remoteAccessSetups[lesson]
	if role == Server {
		return &Prediction{At: "wait-notify", Choices: serverWaitChoices(),
			Question: Text{setup[0].EN + " The client then RDMA-WRITEs and SENDs its notification. How does the server's wait for the notification end?",
				setup[0].ZH + "client 随后 RDMA WRITE，再 SEND 通知。server 等待通知的这一步会怎样结束？"}}
	}
	return &Prediction{At: "poll-write",
		Question: Text{setup[1].EN + " How does the RDMA WRITE complete?", setup[1].ZH + "这个 RDMA WRITE 的完成状态是什么？"},
		Choices:  []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRemAccessErr), statusChoice(verbs.WCLocProtErr), statusChoice(verbs.WCRemInvReqErr)}}
}
