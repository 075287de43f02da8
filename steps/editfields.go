package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The catalogue of editable fields: every argument a learner may change,
// declared once. A step reads its fields' values through the Session's
// edit helpers (editapply.go) at the one point it builds the call.

// Bounds on values that would harm the machine or never end.
const (
	// MaxEditCQE bounds a CQ's depth: a few MB of pinned memory.
	MaxEditCQE = 1 << 17
	// MaxEditQPWR bounds a queue's depth.
	MaxEditQPWR = 1 << 16
	// MaxEditSGE bounds the scatter/gather entries per WR.
	MaxEditSGE = 64
	// MaxEditInline bounds max_inline_data: past rxe's 512 (EINVAL), and
	// past what any NIC offers.
	MaxEditInline = 4096
	// MaxEditMRLen bounds the data MR's length: 16 MiB pinned is already
	// 4096 times what the tour writes. The process's RLIMIT_MEMLOCK may
	// bound it lower (Config.MemlockLimit).
	MaxEditMRLen = 16 << 20
)

var (
	accessChoices = []EditChoice{
		{"IBV_ACCESS_LOCAL_WRITE", uint64(verbs.AccessLocalWrite)}, {"IBV_ACCESS_REMOTE_WRITE", uint64(verbs.AccessRemoteWrite)},
		{"IBV_ACCESS_REMOTE_READ", uint64(verbs.AccessRemoteRead)}, {"IBV_ACCESS_REMOTE_ATOMIC", uint64(verbs.AccessRemoteAtomic)}}
	// sendFlagChoices start with SIGNALED: the flag the bound keeps.
	sendFlagChoices = []EditChoice{
		{"IBV_SEND_SIGNALED", uint64(verbs.SendSignaled)}, {"IBV_SEND_FENCE", uint64(verbs.SendFence)},
		{"IBV_SEND_SOLICITED", uint64(verbs.SendSolicited)}, {"IBV_SEND_INLINE", uint64(verbs.SendInline)}}
	writeOpcodeChoices = []EditChoice{
		{"IBV_WR_RDMA_WRITE", uint64(verbs.WRRDMAWrite)}, {"IBV_WR_RDMA_WRITE_WITH_IMM", uint64(verbs.WRRDMAWriteWithImm)},
		{"IBV_WR_SEND", uint64(verbs.WRSend)}, {"IBV_WR_SEND_WITH_IMM", uint64(verbs.WRSendWithImm)}, {"IBV_WR_RDMA_READ", uint64(verbs.WRRDMARead)}}
)

var (
	signaledBound = text.Text{EN: "without IBV_SEND_SIGNALED the WR makes no completion and the poll after it would wait forever",
		ZH: "没有 IBV_SEND_SIGNALED，这个 WR 不产生完成，后面的轮询会永远等下去"}
	cqeBound   = text.Text{EN: fmt.Sprintf("more than %d entries pins memory for nothing this tour needs", MaxEditCQE), ZH: fmt.Sprintf("超过 %d 个条目只会白白锁住内存，本教程用不到", MaxEditCQE)}
	mrLenBound = text.Text{EN: fmt.Sprintf("more than %d MiB pins memory for nothing this tour needs (a 1 TB MR would try to pin more memory than the machine has)", MaxEditMRLen>>20),
		ZH: fmt.Sprintf("超过 %d MiB 只会白白锁住内存，本教程用不到（1 TB 的 MR 会试图锁住比机器还多的内存）", MaxEditMRLen>>20)}
	qpWRBound = text.Text{EN: fmt.Sprintf("more than %d WRs per queue pins memory for nothing this tour needs", MaxEditQPWR), ZH: fmt.Sprintf("每个队列超过 %d 个 WR 只会白白锁住内存，本教程用不到", MaxEditQPWR)}
)

// EditFields is the whole catalogue, in tour order.
func EditFields() []EditField {
	out := []EditField{
		{Step: IDCreateCQ, Name: "cqe", CName: "cqe", Kind: EditInt, Min: 0, Max: MaxEditCQE, Bound: cqeBound,
			Explain:  text.Text{EN: "How many completions the CQ can hold before it overflows; the device may round it up.", ZH: "CQ 在溢出之前能容纳多少个完成；设备可能向上取整。"},
			fallback: func(*Session) string { return fmt.Sprint(CQDepth) }},
	}
	for _, qp := range []StepID{IDCreateQP, IDCreateQPManual} {
		out = append(out, qpCapFields(qp)...)
	}
	out = append(out, EditField{Step: IDRegMRData, Name: "access", CName: "access", Kind: EditFlags, Choices: accessChoices,
		Explain: text.Text{EN: "What the MR lets be done to its memory: LOCAL_WRITE by this side's own NIC, REMOTE_* by a peer holding the rkey.",
			ZH: "这个 MR 允许对它的内存做什么：LOCAL_WRITE 是本端网卡写入，REMOTE_* 是持有 rkey 的对端访问。"},
		fallback: func(s *Session) string { tour, _ := TourOf(s.cfg.Tour); return tour.dataAccess(s.cfg.Role).String() }},
		EditField{Step: IDRegMRData, Name: "length", CName: "length", Kind: EditInt, Min: 1, Max: MaxEditMRLen, Bound: mrLenBound,
			Explain: text.Text{EN: "How many bytes of the buffer, from its start, the MR covers: the NIC lets a WR touch only those. The buffer stays 4096 bytes (longer if the MR is).",
				ZH: "这个 MR 覆盖 buffer 从开头起的多少字节：网卡只允许 WR 访问这些字节。buffer 仍是 4096 字节（MR 更长时 buffer 也随之更长）。"},
			fallback: func(*Session) string { return fmt.Sprint(BufSize) }})
	out = append(out, postRecvFields()...)
	for _, cm := range []StepID{IDAccept, IDAcceptManual, IDConnect, IDConnectManual} {
		out = append(out, connParamFields(cm)...)
	}
	for _, w := range []StepID{IDPostWrite, IDPostWriteImm} {
		out = append(out, postWriteFields(w)...)
		out = append(out, runFieldOfWrite(w))
	}
	return append(out, modifyFields()...)
}

func qpCapFields(step StepID) []EditField {
	wr := func(name string, v uint32, en, zh string) EditField {
		return EditField{Step: step, Name: name, CName: "cap." + name, Kind: EditInt, Min: 0, Max: MaxEditQPWR, Bound: qpWRBound,
			Explain: text.Text{EN: en, ZH: zh}, fallback: func(*Session) string { return fmt.Sprint(v) }}
	}
	sge := func(name string, en, zh string) EditField {
		return EditField{Step: step, Name: name, CName: "cap." + name, Kind: EditInt, Min: 0, Max: MaxEditSGE,
			Explain: text.Text{EN: en, ZH: zh}, fallback: func(*Session) string { return "1" }}
	}
	return []EditField{
		wr("max_send_wr", 8, "How many send WRs may be outstanding on the send queue at once.", "发送队列上同时最多能有多少个未完成的发送 WR。"),
		wr("max_recv_wr", 8, "How many receive WRs may be posted and waiting at once.", "同时最多能 post 多少个等待中的接收 WR。"),
		sge("max_send_sge", "How many scatter/gather entries one send WR may have.", "一个发送 WR 最多能有多少个 scatter/gather 条目。"),
		sge("max_recv_sge", "How many scatter/gather entries one receive WR may have.", "一个接收 WR 最多能有多少个 scatter/gather 条目。"),
		{Step: step, Name: "max_inline_data", CName: "cap.max_inline_data", Kind: EditInt, Min: 0, Max: MaxEditInline,
			Explain: text.Text{EN: "How many bytes one send WR may carry inline (IBV_SEND_INLINE: copied into the WR, no lkey). The NIC may grant more than asked; ibv_create_qp says how many in cap.max_inline_data. rxe grants at least 16 and refuses more than 512.",
				ZH: "一个发送 WR 最多能内联携带多少字节（IBV_SEND_INLINE：数据拷进 WR，不用 lkey）。网卡给的可能比要的多，ibv_create_qp 把实际值写回 cap.max_inline_data。rxe 至少给 16，超过 512 就拒绝。"},
			fallback: func(*Session) string { return "0" }},
	}
}

func postRecvFields() []EditField {
	return []EditField{
		{Step: IDPostRecv, Name: "run", CName: "(the call itself)", Kind: EditEnum, Choices: []EditChoice{{"RUN", runAsTour}, {"SKIP", runSkip}},
			Explain:  text.Text{EN: "Whether the server posts its RECV before accepting at all (skip: the no-recv lesson's mistake). Decided when the tour starts.", ZH: "server 在 accept 之前到底 post 不 post 它的 RECV（skip 就是 no-recv 这一课的错）。在教程开始时决定。"},
			fallback: func(*Session) string { return "run" }},
		{Step: IDPostRecv, Name: "length", CName: "sg_list.length", Kind: EditInt, Min: 0, Max: BufSize,
			Explain:  text.Text{EN: "How many bytes the posted buffer offers an incoming SEND; the MR behind it is 128 bytes.", ZH: "post 的 buffer 能为到来的 SEND 提供多少字节；它背后的 MR 是 128 字节。"},
			fallback: func(*Session) string { return fmt.Sprint(MsgBufSize) }},
		{Step: IDPostRecv, Name: "wr_id", CName: "wr_id", Kind: EditInt, Min: 0, Max: 1<<63 - 1,
			Explain:  text.Text{EN: "A number the application chooses; the completion gives it back unchanged.", ZH: "应用自己选的一个数；完成会原样带回它。"},
			fallback: func(*Session) string { return fmt.Sprint(WRIDRecv) }},
	}
}

// connParamFields are rdma_conn_param's fields on step (accept or connect).
func connParamFields(step StepID) []EditField {
	retry := func(name, en, zh string, def func(*Session) string) EditField {
		return EditField{Step: step, Name: name, CName: "conn_param." + name, Kind: EditInt, Min: 0, Max: 7,
			Explain: text.Text{EN: en + " A 3-bit field: 0..7.", ZH: zh + "3 位的字段：0..7。"}, fallback: def}
	}
	depth := func(name, en, zh string, def func(*Session) string) EditField {
		return EditField{Step: step, Name: name, CName: "conn_param." + name, Kind: EditInt, Min: 0, Max: 255,
			Explain: text.Text{EN: en, ZH: zh}, fallback: def}
	}
	out := []EditField{
		retry("rnr_retry_count", "How often the requester resends after the responder said Receiver Not Ready; 7 means forever.", "响应端回 Receiver Not Ready 之后，请求端重发多少次；7 表示无限次。",
			func(s *Session) string { return fmt.Sprint(s.cfg.RNRRetry) }),
		depth("responder_resources", "How many RDMA READs and atomics from the peer this side will serve at once.", "本端同时为对端服务多少个 RDMA READ 和原子操作。",
			func(*Session) string { return "1" }),
		depth("initiator_depth", "How many RDMA READs and atomics this side may have outstanding toward the peer.", "本端同时最多能向对端发出多少个未完成的 RDMA READ 和原子操作。",
			func(s *Session) string { return fmt.Sprint(s.initiatorDepth()) }),
	}
	if step == IDConnect || step == IDConnectManual {
		out = append(out, retry("retry_count", "How often the requester resends when no ACK comes back in time.", "没有按时收到 ACK 时，请求端重发多少次。",
			func(*Session) string { return "0" }))
	}
	return out
}

// postWriteFields are the client's RDMA WRITE's arguments on step (post-write
// or post-write-imm): its work request and the message in the buffer.
func postWriteFields(step StepID) []EditField {
	f := func(name, cname string, kind EditKind, min, max int64, en, zh string, def func(*Session) string) EditField {
		return EditField{Step: step, Name: name, CName: cname, Kind: kind, Min: min, Max: max, Explain: text.Text{EN: en, ZH: zh}, fallback: def}
	}
	opcode := verbs.WRRDMAWrite
	if step == IDPostWriteImm {
		opcode = verbs.WRRDMAWriteWithImm
	}
	out := []EditField{
		f("rkey", "wr.rdma.rkey", EditKey, 0, 1<<32-1, "The key the peer's NIC checks before it lets this WR touch its memory: the rkey the peer sent in remote_info.",
			"对端网卡在允许这个 WR 访问其内存之前检查的 key：对端在 remote_info 里发来的 rkey。", func(*Session) string { return "rkey" }),
		f("remote_addr", "wr.rdma.remote_addr", EditAddr, -(1 << 32), 1<<32, "Where in the peer's memory the WRITE starts, as an offset from the address remote_info gave.",
			"WRITE 从对端内存的哪里开始，写成相对 remote_info 给出的地址的偏移。", func(*Session) string { return "+0" }),
		f("length", "sg_list.length", EditInt, 0, 1<<31-1, "How many bytes the WR takes from the local buffer (its MR is 4096 bytes).",
			"这个 WR 从本地 buffer 取多少字节（它的 MR 是 4096 字节）。", func(s *Session) string { return fmt.Sprint(len(s.cfg.messageBytes())) }),
		f("wr_id", "wr_id", EditInt, 0, 1<<63-1, "A number the application chooses; the completion gives it back unchanged.",
			"应用自己选的一个数；完成会原样带回它。", func(*Session) string { return fmt.Sprint(WRIDWrite) }),
		{Step: step, Name: "opcode", CName: "opcode", Kind: EditEnum, Choices: writeOpcodeChoices,
			Explain:  text.Text{EN: "Which operation the WR asks the NIC for.", ZH: "这个 WR 要网卡做哪种操作。"},
			fallback: func(*Session) string { return opcode.String() }},
		{Step: step, Name: "send_flags", CName: "send_flags", Kind: EditFlags, Choices: sendFlagChoices, Bound: signaledBound,
			Explain:  text.Text{EN: "Per-WR options: SIGNALED asks for a completion, FENCE waits for earlier READs, SOLICITED wakes a waiting peer, INLINE copies the data into the WR.", ZH: "每个 WR 的选项：SIGNALED 要求产生完成，FENCE 等之前的 READ 做完，SOLICITED 唤醒等待的对端，INLINE 把数据拷进 WR。"},
			fallback: func(*Session) string { return verbs.SendSignaled.String() }},
		f("num_sge", "num_sge", EditInt, 0, MaxEditSGE, "How many scatter/gather entries the WR has; each here is the same buffer and length.",
			"这个 WR 有几个 scatter/gather 条目；这里每一个都是同一块 buffer、同样的长度。", func(*Session) string { return "1" }),
		f("message", "buf", EditText, 0, BufSize-1, "The bytes put in the buffer before the WRITE (with their NUL).",
			"WRITE 之前放进 buffer 的字节（连同结尾的 NUL）。", func(s *Session) string { return s.cfg.Message }),
	}
	return out
}
