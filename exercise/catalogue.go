package exercise

import (
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// The C each exercise changes, spelled once. Every From must occur once
// in the program it edits (TestEditsApplyOnce), and the mistake of a
// lesson's exercise is what that lesson's exported program does
// (TestMistakesAreTheLessons).
const (
	writeSGE      = ".sg_list = &(struct ibv_sge){ .addr = (uintptr_t)buf, .length = strlen(buf) + 1, .lkey = mr->lkey }, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE"
	writeRemote   = ".wr.rdma = { .remote_addr = remote_addr, .rkey = rkey } }, &bad_send), \"ibv_post_send RDMA_WRITE\");"
	writePost     = "    check(ibv_post_send(qp, &(struct ibv_send_wr){ .wr_id = 300, " + writeSGE + ", .send_flags = IBV_SEND_SIGNALED, " + writeRemote + "\n"
	writePoll     = "    poll_one(cq, &wc, IBV_WC_RDMA_WRITE, \"RDMA_WRITE completion\");\n"
	serverMR      = "if (!(mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))) die(\"ibv_reg_mr buf\");"
	serverInfo    = ".addr_be = htobe64((uintptr_t)buf),"
	recvBeforeAcc = "    /* post-recv: Post a receive before accepting */\n    check(ibv_post_recv(qp, &(struct ibv_recv_wr){ .wr_id = 100, .sg_list = &(struct ibv_sge){ .addr = (uintptr_t)recv_buf, .length = 128, .lkey = recv_mr->lkey }, .num_sge = 1 }, &bad_recv), \"ibv_post_recv\");\n\n"
	sendMRLine    = "    if (!(send_mr = ibv_reg_mr(pd, send_buf, 128, IBV_ACCESS_LOCAL_WRITE))) die(\"ibv_reg_mr send_buf\");\n"
	earlyPost     = "\n    /* post-write-early: post_send while the QP is in INIT */\n    check(ibv_post_send(qp, &(struct ibv_send_wr){ .wr_id = 500, .sg_list = &(struct ibv_sge){ .addr = (uintptr_t)buf, .length = 0, .lkey = mr->lkey }, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE, .send_flags = 0, .wr.rdma = { .remote_addr = 0, .rkey = 0 } }, &bad_send), \"ibv_post_send before rdma_connect\");\n"
	atomicRemote  = ".wr.atomic = { .remote_addr = remote_addr, .compare_add = 2,"
	manualRTR     = "    attr.qp_state = IBV_QPS_RTR;\n    check(rdma_init_qp_attr(id, &attr, &mask), \"rdma_init_qp_attr\");\n    check(ibv_modify_qp(qp, &attr, mask), \"ibv_modify_qp\");\n"
	udCreateAH    = "    if (!(ah = ibv_create_ah(pd, &ah_attr))) die(\"ibv_create_ah\");\n"
	sgeNamed      = ".sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE"
)

// todo is a fill-in's gap: a comment saying what goes there, and a
// runtime error until it is filled, so the program compiles unchanged
// and fails only when it runs.
func todo(what, step string) string {
	return "    /* TODO: " + what + " */\n    die_msg(\"TODO: " + step + " is not written yet (see the TODO above)\");\n"
}

// Catalogue is every exercise, easiest first. It is the one list: the
// command line, the pages and the progress map all read it.
func Catalogue() []Exercise {
	return []Exercise{
		{Name: "no-remote-write", Kind: FixTheBug, Role: steps.Server, Lesson: "no-remote-write",
			Title: text.Text{EN: "The server's buffer refuses the WRITE", ZH: "server 的 buffer 拒绝了 WRITE"},
			Task:  []Edit{{serverMR, "if (!(mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE))) die(\"ibv_reg_mr buf\");"}}},
		{Name: "bad-rkey", Kind: FixTheBug, Role: steps.Client, Lesson: "bad-rkey",
			Title: text.Text{EN: "The WRITE carries the wrong key", ZH: "WRITE 带错了 key"},
			Task:  []Edit{{writeRemote, ".wr.rdma = { .remote_addr = remote_addr, .rkey = mr->lkey } }, &bad_send), \"ibv_post_send RDMA_WRITE\");"}}},
		{Name: "fill-sge", Kind: FillIn, Role: steps.Client,
			Title:    text.Text{EN: "Fill the WRITE's ibv_sge", ZH: "填好 WRITE 的 ibv_sge"},
			Solution: []Edit{{writePost, "    struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = strlen(buf) + 1, .lkey = mr->lkey };\n" + replaceIn(writePost, writeSGE, sgeNamed)}},
			Task: []Edit{{"    struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = strlen(buf) + 1, .lkey = mr->lkey };\n",
				"    struct ibv_sge sge = { 0 };\n    /* TODO: fill sge: where the message is, how many bytes (its NUL included), and the lkey of the MR it is in. */\n    if (!sge.length)\n        die_msg(\"TODO: the ibv_sge of the RDMA WRITE is still empty (see the TODO above)\");\n"}}},
		{Name: "post-the-write", Kind: FillIn, Role: steps.Client,
			Title: text.Text{EN: "Post the RDMA WRITE", ZH: "post 这个 RDMA WRITE"},
			Task:  []Edit{{writePost, todo("post the RDMA WRITE of buf (strlen(buf) + 1 bytes, mr->lkey) to remote_addr with rkey, signaled, wr_id 300.", "the RDMA WRITE")}}},
		{Name: "poll-the-cq", Kind: FillIn, Role: steps.Client,
			Title: text.Text{EN: "Poll the CQ until the WRITE completes", ZH: "poll CQ，直到 WRITE 完成"},
			Task:  []Edit{{writePoll, todo("poll cq until the WRITE's completion comes; stop on a status other than IBV_WC_SUCCESS.", "the poll of the WRITE")}}},
		{Name: "write-too-long", Kind: FixTheBug, Role: steps.Client,
			Title: text.Text{EN: "The WRITE is longer than its buffer", ZH: "WRITE 比它的 buffer 还长"},
			Task:  []Edit{{writeSGE, replaceIn(writeSGE, ".length = strlen(buf) + 1", ".length = BUF_SIZE + 1")}}},
		{Name: "no-recv", Kind: FixTheBug, Role: steps.Server, Lesson: "no-recv",
			Title: text.Text{EN: "The SEND finds no RECV", ZH: "SEND 找不到 RECV"},
			Task:  []Edit{{recvBeforeAcc, ""}}},
		{Name: "htonl-address", Kind: FixTheBug, Role: steps.Server, Lesson: "htonl-address",
			Title: text.Text{EN: "The address loses its top half", ZH: "地址丢了高 32 位"},
			Task:  []Edit{{serverInfo, ".addr_be = htonl((uintptr_t)buf),"}}},
		{Name: "post-before-connect", Kind: FixTheBug, Role: steps.Client, Lesson: "post-before-connect",
			Title: text.Text{EN: "A WRITE posted before the QP can send", ZH: "QP 还不能发送就 post 了 WRITE"},
			Task:  []Edit{{sendMRLine, sendMRLine + earlyPost}}},
		{Name: "atomic-unaligned", Kind: FixTheBug, Role: steps.Client, Tour: steps.TourAtomic, Lesson: "atomic-unaligned",
			Title: text.Text{EN: "An atomic on a crooked address", ZH: "原子操作打在没对齐的地址上"},
			Task:  []Edit{{atomicRemote, ".wr.atomic = { .remote_addr = remote_addr + 4, .compare_add = 2,"}}},
		{Name: "manual-rtr", Kind: FillIn, Role: steps.Client, Track: steps.TrackManual,
			Title: text.Text{EN: "Move the QP to RTR yourself", ZH: "自己把 QP 切到 RTR"},
			Task:  []Edit{{manualRTR, todo("move qp from INIT to RTR: the attributes rdma_cm computed for RTR (rdma_init_qp_attr), then ibv_modify_qp.", "the INIT to RTR transition")}}},
		{Name: "ud-address-handle", Kind: FillIn, Role: steps.Client, Tour: steps.TourUD,
			Title: text.Text{EN: "Make the UD address handle", ZH: "创建 UD 的地址句柄"},
			Task:  []Edit{{udCreateAH, todo("make ah, the address handle to the server, from pd and the ah_attr the resolution gave.", "the address handle")}}},
	}
}
