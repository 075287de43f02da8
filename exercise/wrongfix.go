package exercise

import "github.com/rdmatour/rdmatour/text"

// WrongFix is a change a learner may well make that still does not work:
// the first mistake fixed and another made, or the fix half done. Each
// gets its own verdict, from its own evidence.
type WrongFix struct {
	Name string
	// What is what the fix gets right and what it breaks.
	What text.Text
	// Edits turn the learner's program (as start writes it) into the
	// wrong fix; each From must be there once.
	Edits []Edit
	// Sim is the same mistake as --edit edits of rdmatour's own side in
	// the learner's role, to judge on the simulated NIC (nil: no edit
	// says it; the guest test judges it on Soft-RoCE).
	Sim []string
	// Real is what the verdict names on Soft-RoCE (English): the evidence
	// that sets this fix apart from the unchanged program.
	Real string
	// OnSim is what the verdict names on the simulated NIC, where the
	// wire is seen ("": Sim is nil).
	OnSim string
}

// wrongFixes are each exercise's wrong fixes, by the exercise's name:
// declared here, beside the catalogue, once.
var wrongFixes = map[string][]WrongFix{
	"no-remote-write": {
		{Name: "remote-write-alone", What: text.Text{EN: "REMOTE_WRITE given, LOCAL_WRITE taken away", ZH: "给了 REMOTE_WRITE，却去掉了 LOCAL_WRITE"},
			Edits: []Edit{{"ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE)", "ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE)"}},
			Sim:   []string{"server:reg-mr-data.access=IBV_ACCESS_REMOTE_WRITE"}, Real: "ibv_reg_mr buf: Invalid argument", OnSim: "EINVAL"},
		{Name: "remote-read-instead", What: text.Text{EN: "REMOTE_READ added where the WRITE needs REMOTE_WRITE", ZH: "加的是 REMOTE_READ，而 WRITE 要的是 REMOTE_WRITE"},
			Edits: []Edit{{"ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE)", "ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ)"}},
			Sim:   []string{"server:reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE|IBV_ACCESS_REMOTE_READ"}, Real: "IBV_ACCESS_REMOTE_READ", OnSim: "NAK remote access error"},
	},
	"bad-rkey": {
		{Name: "rkey-right-length-wrong", What: text.Text{EN: "the rkey fixed, the length broken", ZH: "rkey 改对了，长度却改坏了"},
			Edits: []Edit{{".rkey = mr->lkey }", ".rkey = rkey }"}, {".length = strlen(buf) + 1, .lkey = mr->lkey }, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE", ".length = BUF_SIZE + 1, .lkey = mr->lkey }, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE"}},
			Sim:   []string{"client:post-write.length=4097"}, Real: "RDMA_WRITE completion failed", OnSim: "RDMA_WRITE completion"},
		{Name: "rkey-right-address-past-the-end", What: text.Text{EN: "the rkey fixed, the address moved past the buffer", ZH: "rkey 改对了，地址却挪到了 buffer 外面"},
			Edits: []Edit{{".remote_addr = remote_addr, .rkey = mr->lkey }", ".remote_addr = remote_addr + BUF_SIZE, .rkey = rkey }"}},
			Sim:   []string{"client:post-write.remote_addr=+4096"}, Real: ".remote_addr = remote_addr + BUF_SIZE", OnSim: "are not inside the server's buffer"},
	},
	"fill-sge": {
		{Name: "no-lkey", What: text.Text{EN: "address and length filled, the lkey left 0", ZH: "填了地址和长度，lkey 还是 0"},
			Edits: []Edit{{"struct ibv_sge sge = { 0 };", "struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = strlen(buf) + 1 };"}},
			Real:  "local QP operation error"},
		{Name: "one-byte-late", What: text.Text{EN: "the address one byte past the message's start", ZH: "地址比消息开头晚了一个字节"},
			Edits: []Edit{{"struct ibv_sge sge = { 0 };", "struct ibv_sge sge = { .addr = (uintptr_t)buf + 1, .length = strlen(buf) + 1, .lkey = mr->lkey };"}},
			Real:  "not the message your program put in buf"},
	},
	"post-the-write": {
		{Name: "unsignaled", What: text.Text{EN: "the WRITE posted without IBV_SEND_SIGNALED: its poll never ends", ZH: "WRITE post 时没带 IBV_SEND_SIGNALED：poll 永远等不到它"},
			Edits: []Edit{{postTheWriteTODO, replaceIn(writePost, ".send_flags = IBV_SEND_SIGNALED", ".send_flags = 0")}},
			Real:  "killed at the"},
		{Name: "remote-key-as-lkey", What: text.Text{EN: "the server's rkey given as the local lkey", ZH: "把 server 的 rkey 当成了本地的 lkey"},
			Edits: []Edit{{postTheWriteTODO, replaceIn(writePost, ".lkey = mr->lkey", ".lkey = rkey")}},
			Real:  "local QP operation error"},
	},
	"poll-the-cq": {
		{Name: "wrong-opcode", What: text.Text{EN: "polled, but for a SEND's completion", ZH: "poll 了，却在等一个 SEND 的完成"},
			Edits: []Edit{{pollTheCQTODO, "    poll_one(cq, &wc, IBV_WC_SEND, \"RDMA_WRITE completion\");\n"}},
			Real:  "unexpected completion opcode"},
		{Name: "zero-entries", What: text.Text{EN: "polled for zero entries: it can never return one", ZH: "poll 时要的是 0 个条目：永远拿不到完成"},
			Edits: []Edit{{pollTheCQTODO, "    while (ibv_poll_cq(cq, 0, &wc) == 0)\n        ;\n"}},
			Real:  "killed at the"},
	},
	"write-too-long": {
		{Name: "zero-length", What: text.Text{EN: "the length made 0: nothing is written", ZH: "长度改成了 0：什么都没写过去"},
			Edits: []Edit{{".length = BUF_SIZE + 1", ".length = 0"}},
			Sim:   []string{"client:post-write.length=0"}, Real: "the server's buffer: empty", OnSim: "the server's buffer: empty"},
		{Name: "unsignaled", What: text.Text{EN: "the length fixed, IBV_SEND_SIGNALED taken away: its poll never ends", ZH: "长度改对了，却去掉了 IBV_SEND_SIGNALED：poll 永远等不到它"},
			Edits: []Edit{{".length = BUF_SIZE + 1", ".length = strlen(buf) + 1"}, {".opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED", ".opcode = IBV_WR_RDMA_WRITE, .send_flags = 0"}},
			Real:  "killed at the"},
	},
	"no-recv": {
		{Name: "recv-too-short", What: text.Text{EN: "a RECV posted, 4 bytes long: the SEND does not fit", ZH: "post 了 RECV，但只有 4 字节：SEND 放不下"},
			Edits: []Edit{{acceptComment, replaceIn(recvBeforeAcc, ".length = 128", ".length = 4") + acceptComment}},
			Sim:   []string{"server:post-recv.length=4"}, Real: "recv done message failed: status=local QP operation error", OnSim: "answered rdmatour's SEND_ONLY with NAK"},
		{Name: "recv-wrong-lkey", What: text.Text{EN: "a RECV posted with the data buffer's lkey", ZH: "post 的 RECV 用的是数据 buffer 的 lkey"},
			Edits: []Edit{{acceptComment, replaceIn(recvBeforeAcc, ".lkey = recv_mr->lkey", ".lkey = mr->lkey") + acceptComment}},
			Real:  ".lkey = mr->lkey"},
	},
	"htonl-address": {
		{Name: "no-byte-order", What: text.Text{EN: "the address sent in the host's byte order", ZH: "地址按主机字节序发了出去"},
			Edits: []Edit{{".addr_be = htonl((uintptr_t)buf),", ".addr_be = (uintptr_t)buf,"}},
			Real:  ".addr_be = (uintptr_t)buf"},
		{Name: "rkey-byte-order", What: text.Text{EN: "the address fixed, the rkey sent in the host's byte order", ZH: "地址改对了，rkey 却按主机字节序发了出去"},
			Edits: []Edit{{".addr_be = htonl((uintptr_t)buf), .rkey_be = htonl(mr->rkey),", ".addr_be = htobe64((uintptr_t)buf), .rkey_be = mr->rkey,"}},
			Real:  ".rkey_be = mr->rkey"},
	},
	"post-before-connect": {
		{Name: "posted-late-to-nowhere", What: text.Text{EN: "the early WRITE moved after the connection, still aimed at address 0 with rkey 0", ZH: "提前的 WRITE 挪到了连接之后，但仍然打向地址 0、rkey 0"},
			Edits: []Edit{{earlyPost, ""}, {connectedLine, connectedLine + earlyPostBody}},
			Real:  "remote access error"},
		{Name: "posted-late-right-key-no-address", What: text.Text{EN: "the early WRITE moved after the connection with the rkey, still at address 0", ZH: "提前的 WRITE 挪到连接之后、带上了 rkey，但地址还是 0"},
			Edits: []Edit{{earlyPost, ""}, {connectedLine, connectedLine + replaceIn(earlyPostBody, ".rkey = 0", ".rkey = rkey")}},
			Real:  "remote access error"},
	},
	"atomic-unaligned": {
		{Name: "past-the-end", What: text.Text{EN: "aligned now, but past the end of the server's buffer", ZH: "对齐了，却越过了 server 的 buffer 末尾"},
			Edits: []Edit{{".remote_addr = remote_addr + 4,", ".remote_addr = remote_addr + BUF_SIZE,"}},
			Real:  "remote access error"},
		{Name: "local-key-remote", What: text.Text{EN: "the address fixed, the local MR's rkey sent", ZH: "地址改对了，发的却是本地 MR 的 rkey"},
			Edits: []Edit{{".remote_addr = remote_addr + 4, .compare_add = 2, .swap = 0, .rkey = rkey }", ".remote_addr = remote_addr, .compare_add = 2, .swap = 0, .rkey = mr->rkey }"}},
			Real:  "remote access error"},
	},
	"manual-rtr": {
		{Name: "state-alone", What: text.Text{EN: "RTR asked for with IBV_QP_STATE alone: none of the path's attributes", ZH: "只用 IBV_QP_STATE 要求切到 RTR：路径属性一个都没给"},
			Edits: []Edit{{manualRTRTODO, "    attr.qp_state = IBV_QPS_RTR;\n    check(ibv_modify_qp(qp, &attr, IBV_QP_STATE), \"ibv_modify_qp\");\n"}},
			Real:  "ibv_modify_qp: Invalid argument"},
		{Name: "straight-to-rts", What: text.Text{EN: "INIT straight to RTS, skipping RTR", ZH: "从 INIT 直接跳到 RTS，跳过了 RTR"},
			Edits: []Edit{{manualRTRTODO, replaceIn(manualRTR, "IBV_QPS_RTR", "IBV_QPS_RTS")}},
			Real:  "ibv_modify_qp: Invalid argument"},
	},
	"ud-address-handle": {
		{Name: "empty-attr", What: text.Text{EN: "an address handle made from an empty ibv_ah_attr", ZH: "用一个空的 ibv_ah_attr 创建地址句柄"},
			Edits: []Edit{{udAHTODO, "    if (!(ah = ibv_create_ah(pd, &(struct ibv_ah_attr){ .port_num = 1 }))) die(\"ibv_create_ah\");\n"}},
			Real:  "ibv_create_ah"},
		{Name: "wrong-port", What: text.Text{EN: "the resolved ibv_ah_attr, on port 2 (the device has one)", ZH: "用了解析出来的 ibv_ah_attr，却放在 2 号端口（设备只有一个）"},
			Edits: []Edit{{udAHTODO, "    ah_attr.port_num = 2;\n" + udCreateAH}},
			Real:  "ibv_create_ah: Invalid argument"},
	},
}

// The learner's programs' text the wrong fixes edit.
var (
	postTheWriteTODO = todo("post the RDMA WRITE of buf (strlen(buf) + 1 bytes, mr->lkey) to remote_addr with rkey, signaled, wr_id 300.", "the RDMA WRITE")
	pollTheCQTODO    = todo("poll cq until the WRITE's completion comes; stop on a status other than IBV_WC_SUCCESS.", "the poll of the WRITE")
	manualRTRTODO    = todo("move qp from INIT to RTR: the attributes rdma_cm computed for RTR (rdma_init_qp_attr), then ibv_modify_qp.", "the INIT to RTR transition")
	udAHTODO         = todo("make ah, the address handle to the server, from pd and the ah_attr the resolution gave.", "the address handle")
	acceptComment    = "    /* accept: Accept, handing out addr and rkey */\n"
	connectedLine    = "    printf(\"[client] connected: remote addr=0x%\" PRIx64 \" rkey=0x%\" PRIx32 \" size=%\" PRIu32 \"\\n\", remote_addr, rkey, size);\n"
	// The early WRITE as a learner moves it: given a length, as a zero-byte
	// WRITE needs no rkey (rxe_resp.c check_rkey, C9-88) and would pass.
	earlyPostBody = "    check(ibv_post_send(qp, &(struct ibv_send_wr){ .wr_id = 500, .sg_list = &(struct ibv_sge){ .addr = (uintptr_t)buf, .length = strlen(buf) + 1, .lkey = mr->lkey }, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE, .send_flags = 0, .wr.rdma = { .remote_addr = 0, .rkey = 0 } }, &bad_send), \"ibv_post_send before rdma_connect\");\n"
)

// WrongFixes are the exercise's wrong fixes.
func (e Exercise) WrongFixes() []WrongFix { return wrongFixes[e.Name] }

// WrongProgram is the learner's program with the wrong fix made.
func (e Exercise) WrongProgram(learner string, w WrongFix) (string, error) {
	return e.apply(learner, w.Edits)
}

// Variant is one program check is tested with: the learner's program as
// start writes it, the reference solution, or a wrong fix.
type Variant struct {
	// Name is "unchanged", "solution" or the wrong fix's name.
	Name   string
	Source string
	// Fix is the wrong fix (nil for the other two).
	Fix *WrongFix
}

// Variants are the exercise's programs for the tests: unchanged,
// solution, then each wrong fix.
func (e Exercise) Variants(p Programs) ([]Variant, error) {
	out := []Variant{{Name: "unchanged", Source: p.Learner}, {Name: "solution", Source: p.Solution}}
	for _, w := range e.WrongFixes() {
		src, err := e.WrongProgram(p.Learner, w)
		if err != nil {
			return nil, err
		}
		out = append(out, Variant{Name: w.Name, Source: src, Fix: &w})
	}
	return out, nil
}
