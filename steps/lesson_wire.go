package steps

import (
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The wire's lessons: nothing is wrong in the code; the wire loses
// packets on purpose (Lesson.wire, impair.go) and RC recovers, or gives
// up. On the simulated NIC the sender's wire loses them, and its recovery
// follows rxe's requester, responder and completer (verbs/sim
// TestFaultTable); on Soft-RoCE the receiving host drops them with
// nftables (impair_real.go), and the packets on the wire are the
// simulated NIC's (TestSimWireFaultsMatchRxe, scripts/wirefaults.sh).

// retryCount is the client's conn_param.retry_count edit: the tour's own
// is 0, with which one loss is fatal (retry-zero).
func retryCount(n string) []string { return []string{"client:connect.retry_count=" + n} }

func lessonLostWrite() Lesson {
	return Lesson{Name: "lost-write", Notify: NotifySend, by: noMistake, messageSize: 3000,
		Title:   text.Text{EN: "The middle packet of a WRITE is lost", ZH: "WRITE 的中间那个包丢了"},
		Summary: text.Text{EN: "a 3000-byte WRITE is three packets and the second is lost: the server NAKs with a PSN sequence error, the client goes back to that PSN, the WRITE completes", ZH: "3000 字节的 WRITE 是三个包，第二个丢了：server 回 PSN sequence error NAK，client 退回到那个 PSN 重发，WRITE 照样完成"},
		preset:  retryCount("7"), wire: clientLoses(verbs.WireFaults{Drop: []int{2}}),
		predict: clientAsksAboutWrite(text.Text{EN: "The client's 3000-byte RDMA WRITE goes out as three packets and the second is lost on the wire (retry_count 7).",
			ZH: "client 3000 字节的 RDMA WRITE 分成三个包发出，第二个在线上丢了（retry_count 7）。"})}
}

func lessonLostAck() Lesson {
	return Lesson{Name: "lost-ack", Notify: NotifySend, by: noMistake,
		Title:   text.Text{EN: "The ACK of a WRITE is lost", ZH: "WRITE 的 ACK 丢了"},
		Summary: text.Text{EN: "the server's ACK for the WRITE is lost: the client times out and sends the WRITE again, the server sees a duplicate and ACKs again without writing twice", ZH: "server 给 WRITE 的 ACK 丢了：client 超时后重发 WRITE，server 认出这是重复请求，再 ACK 一次，但不会再写一遍"},
		preset:  retryCount("7"), wire: serverLoses(verbs.WireFaults{Drop: []int{1}}),
		predict: clientAsksAboutWrite(text.Text{EN: "The WRITE reaches the server, but the server's ACK for it is lost on the wire (retry_count 7).",
			ZH: "WRITE 到达了 server，但 server 给它的 ACK 在线上丢了（retry_count 7）。"})}
}

func lessonPeerVanished() Lesson {
	return Lesson{Name: "peer-vanished", Notify: NotifySend, by: noMistake,
		Title:   text.Text{EN: "The server vanishes from the wire", ZH: "server 从线上消失了"},
		Summary: text.Text{EN: "after the connection every packet the client sends is lost: the WRITE is sent again retry_count (3) times, one ACK timeout apart, then transport retry counter exceeded", ZH: "连接建立后 client 发出的每个包都丢了：WRITE 每隔一个 ACK 超时重发一次，共 retry_count（3）次，然后 transport retry counter exceeded"},
		preset:  retryCount("3"), wire: clientLoses(verbs.WireFaults{LossPercent: 100}), edit: editWriteGivesUp,
		predict: clientAsksAboutWrite(text.Text{EN: "After the connection is set up, every packet the client sends is lost on the wire (retry_count 3).",
			ZH: "连接建立之后，client 发出的每个包都在线上丢了（retry_count 3）。"})}
}

func lessonRetryZero() Lesson {
	return Lesson{Name: "retry-zero", Notify: NotifySend, by: noMistake,
		Title:   text.Text{EN: "One lost packet with retry_count 0", ZH: "retry_count 为 0 时丢一个包"},
		Summary: text.Text{EN: "the WRITE's only packet is lost and retry_count is 0, as the tour leaves it: after one ACK timeout, transport retry counter exceeded", ZH: "WRITE 唯一的包丢了，而 retry_count 是 0（教程的默认值）：一个 ACK 超时之后就是 transport retry counter exceeded"},
		wire:    clientLoses(verbs.WireFaults{Drop: []int{1}}), edit: editWriteGivesUp,
		predict: clientAsksAboutWrite(text.Text{EN: "The WRITE's only packet is lost on the wire, and the client connected with retry_count 0, as the tour does.",
			ZH: "WRITE 唯一的那个包在线上丢了，而 client 连接时用的 retry_count 是 0（教程就是这样）。"})}
}

// lessonLostReadResponse: the server's NIC answers the tour's READ of its
// whole 4096-byte buffer with four response packets (path MTU 1024) and
// the second is lost. Nothing NAKs a lost response: rxe's completer drops
// the ones after it, whose PSNs are past the one
// it waits for (kernel rxe_comp.c check_psn), and asks again from the
// missing PSN when its ACK timer fires; the responder reads the buffer
// again for the duplicate request (rxe_resp.c duplicate_request).
func lessonLostReadResponse() Lesson {
	return Lesson{Name: "lost-read-response", Tour: TourRead, by: noMistake,
		Title:   text.Text{EN: "The middle packet of a READ response is lost", ZH: "READ 响应的中间那个包丢了"},
		Summary: text.Text{EN: "the server's NIC answers the 4096-byte READ with four packets and the second is lost: no NAK, the client's ACK timer fires and it asks again from the missing PSN, the server reads its buffer again, the READ completes", ZH: "server 的网卡用四个包回应 4096 字节的 READ，第二个丢了：没有 NAK，client 的 ACK 定时器超时后从缺的那个 PSN 起重新请求，server 再读一遍自己的 buffer，READ 照样完成"},
		preset:  retryCount("7"), wire: serverLoses(verbs.WireFaults{Drop: []int{2}}),
		predict: clientAsks(&Prediction{At: IDPollRead,
			Question: text.Text{EN: "The client READs the server's whole 4096-byte buffer; the server's NIC answers with four response packets (path MTU 1024) and the second is lost on the wire (retry_count 7). How does the RDMA READ complete?",
				ZH: "client READ server 整个 4096 字节的 buffer；server 的网卡用四个响应包回应（路径 MTU 1024），第二个在线上丢了（retry_count 7）。这个 RDMA READ 的完成状态是什么？"},
			Choices: []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRetryExcErr), statusChoice(verbs.WCRemInvReqErr), statusChoice(verbs.WCWRFlushErr)}})}
}

// clientLoses and serverLoses are a lesson's faults on one side's packets.
func clientLoses(f verbs.WireFaults) func(Config) verbs.WireFaults { return sideLoses(Client, f) }
func serverLoses(f verbs.WireFaults) func(Config) verbs.WireFaults { return sideLoses(Server, f) }

func sideLoses(role Role, f verbs.WireFaults) func(Config) verbs.WireFaults {
	return func(cfg Config) verbs.WireFaults {
		if cfg.Role != role {
			return verbs.WireFaults{}
		}
		return f
	}
}

// editWriteGivesUp: the client's WRITE ends with transport retry counter
// exceeded, its SEND is flushed, and the server's wait ends when the
// client hangs up.
func editWriteGivesUp(cfg Config, t *tourEdit) {
	if cfg.Role == Server {
		t.edit(IDWaitNotify, func(st *Step) {
			st.Expect = expectPeerFailure()
			st.After = []StepID{IDDisconnect}
		})
		return
	}
	t.edit(IDPollWrite, func(st *Step) { st.Expect = expectStatus(verbs.WCRetryExcErr) })
	t.edit(IDPollNotify, func(st *Step) { st.Expect = expectStatus(verbs.WCWRFlushErr) })
	t.edit(IDDisconnect, func(st *Step) { st.After = nil })
}

// clientAsksAboutWrite asks the client how its WRITE completes after
// setup; the server is asked nothing (the wire is not its code).
func clientAsksAboutWrite(setup text.Text) func(Config) *Prediction {
	return clientAsks(&Prediction{At: IDPollWrite,
		Question: text.Text{EN: setup.EN + " How does the RDMA WRITE complete?", ZH: setup.ZH + "这个 RDMA WRITE 的完成状态是什么？"},
		Choices:  []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRetryExcErr), statusChoice(verbs.WCRemInvReqErr), statusChoice(verbs.WCWRFlushErr)}})
}
