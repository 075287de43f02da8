package steps

import (
	"github.com/rdmatour/rdmatour/text"
)

// The names of the results a call shows (Outcome.Results), each declared
// once in both languages: a rewording changes both, and nothing
// translates a name by matching its English. Names that are C
// identifiers or fields (wr_id, byte_len, id->verbs, rkey) read the same
// in both, as the glossary keeps them.

// result is a named result whose value reads the same in both languages:
// a number, an address, a C name, or what the system or the peer said.
func result(name text.Text, value string) KV { return KV{Name: name, Value: text.Same(value)} }

// cname is a result name that is C's own: the same in both languages.
func cname(c string) text.Text { return text.Text{EN: c, ZH: c} }

// addrName is "<buffer> addr", for the buffer a step registered.
func addrName(buf string) text.Text { return text.Text{EN: buf + " addr", ZH: buf + " 地址"} }

// Result names in words.
var (
	res8ByteAligned           = text.Text{EN: "8-byte aligned", ZH: "8 字节对齐"}
	resGRHBytes019            = text.Text{EN: "GRH bytes 0-19", ZH: "GRH 第 0-19 字节"}
	resGRHBytes2039IPv4Header = text.Text{EN: "GRH bytes 20-39 (IPv4 header)", ZH: "GRH 第 20-39 字节（IPv4 头）"}
	resIPv4SourceDestination  = text.Text{EN: "IPv4 source → destination", ZH: "IPv4 源 → 目的"}
	resQPAfterIbvModifyQp     = text.Text{EN: "QP after ibv_modify_qp", ZH: "ibv_modify_qp 之后的 QP"}
	resQPAfterRdmaDisconnect  = text.Text{EN: "QP after rdma_disconnect", ZH: "rdma_disconnect 之后的 QP"}
	resQPState                = text.Text{EN: "QP state", ZH: "QP 状态"}
	resChannelFD              = cname("channel->fd")
	resRlimitMemlock          = cname("RLIMIT_MEMLOCK")
	resCapIPCLock             = text.Text{EN: "this process has CAP_IPC_LOCK", ZH: "本进程有 CAP_IPC_LOCK"}
	resREPQpNum               = text.Text{EN: "REP qp_num", ZH: "REP 里的 qp_num"}
	resREQQpNum               = text.Text{EN: "REQ qp_num", ZH: "REQ 里的 qp_num"}
	resRNRNAKSeenFirst        = text.Text{EN: "RNR NAK seen first", ZH: "先看到的 RNR NAK"}
	resAhFromTheGRHDgid       = text.Text{EN: "ah from the GRH: dgid", ZH: "由 GRH 得到的 ah：dgid"}
	resAnswerRecvBuf40        = text.Text{EN: "answer (recv_buf + 40)", ZH: "回复（recv_buf + 40）"}
	resAt                     = text.Text{EN: "at", ZH: "位置"}
	resBeforeIt               = text.Text{EN: "before it", ZH: "在它之前"}
	resBoundTo                = text.Text{EN: "bound to", ZH: "绑定到"}
	resBuffer                 = text.Text{EN: "buffer", ZH: "buffer 内容"}
	resBytes                  = text.Text{EN: "bytes", ZH: "字节数"}
	resClientQPN              = text.Text{EN: "client QPN", ZH: "client 的 QPN"}
	resCompareHeld            = text.Text{EN: "compare held", ZH: "比较成立"}
	resCounter                = text.Text{EN: "counter", ZH: "计数器"}
	resCounterAfterOurAdd     = text.Text{EN: "counter after our add", ZH: "我们加过之后的计数器"}
	resCounterNow             = text.Text{EN: "counter now", ZH: "计数器当前值"}
	resDevice                 = text.Text{EN: "device", ZH: "设备"}
	resDoorbellAddr           = text.Text{EN: "doorbell addr", ZH: "doorbell 地址"}
	resDoorbellRkey           = text.Text{EN: "doorbell rkey", ZH: "doorbell 的 rkey"}
	resEvent                  = text.Text{EN: "event", ZH: "事件"}
	resFrom                   = text.Text{EN: "from", ZH: "来自"}
	resHelloSent              = text.Text{EN: "hello sent", ZH: "发出的 hello"}
	resHopLimitTheIPv4TTL     = text.Text{EN: "hop_limit (the IPv4 TTL)", ZH: "hop_limit（即 IPv4 TTL）"}
	resListeningOn            = text.Text{EN: "listening on", ZH: "监听地址"}
	resLiveObjectsLeft        = text.Text{EN: "live objects left", ZH: "仍存活的对象"}
	resLocal                  = text.Text{EN: "local", ZH: "本地地址"}
	resMessageRecvBuf40       = text.Text{EN: "message (recv_buf + 40)", ZH: "消息（recv_buf + 40）"}
	resNotice                 = text.Text{EN: "notice", ZH: "通知内容"}
	resNotifiedBy             = text.Text{EN: "notified by", ZH: "通知方式"}
	resOldValue               = text.Text{EN: "old value", ZH: "原值"}
	resPeerRuns               = text.Text{EN: "peer runs", ZH: "对端在跑"}
	resPort                   = text.Text{EN: "port", ZH: "端口"}
	resPortSpace              = text.Text{EN: "port space", ZH: "端口空间"}
	resPrivateData            = text.Text{EN: "private data", ZH: "private data"}
	resReceiveQueue           = text.Text{EN: "receive queue", ZH: "接收队列"}
	resRemoteAddr             = text.Text{EN: "remote addr", ZH: "对端 addr"}
	resRemoteRkey             = text.Text{EN: "remote rkey", ZH: "对端 rkey"}
	resRemoteSize             = text.Text{EN: "remote size", ZH: "对端 size"}
	resRemoteQpnWcSrcQp       = text.Text{EN: "remote_qpn (wc.src_qp)", ZH: "remote_qpn（wc.src_qp）"}
	resReturned               = text.Text{EN: "returned", ZH: "返回值"}
	resCompletionsPolled      = text.Text{EN: "completions polled", ZH: "poll 到的完成"}
	resSent                   = text.Text{EN: "sent", ZH: "已发送"}
	resSentAgain              = text.Text{EN: "sent again", ZH: "再次发出"}
	resServerQPN              = text.Text{EN: "server QPN", ZH: "server 的 QPN"}
	resStartedAt              = text.Text{EN: "started at", ZH: "初始值"}
	resREADsAnswered          = text.Text{EN: "READs answered", ZH: "应答的 READ 数"}
	resAtomicsAnswered        = text.Text{EN: "atomics answered", ZH: "应答的原子操作数"}
	resStateIbvQueryQp        = text.Text{EN: "state (ibv_query_qp)", ZH: "状态（ibv_query_qp）"}
	resSwap                   = text.Text{EN: "swap", ZH: "swap 值"}
	resTimeout                = text.Text{EN: "timeout", ZH: "超时"}
	resTarget                 = text.Text{EN: "target", ZH: "目标"}
	resTo                     = text.Text{EN: "to", ZH: "目标"}
	resTransition             = text.Text{EN: "transition", ZH: "状态转换"}
	resPortActiveMTU          = text.Text{EN: "port 1 active_mtu", ZH: "端口 1 的 active_mtu"}
)

// Result names that are C's own.
var (
	resAccess                = cname("access")
	resAh                    = cname("ah")
	resAtomicCap             = cname("atomic_cap")
	resByteLen               = cname("byte_len")
	resCompareAdd            = cname("compare_add")
	resCqCqe                 = cname("cq->cqe")
	resDgid                  = cname("dgid")
	resEc                    = cname("ec")
	resIdQp                  = cname("id->qp")
	resIdVerbs               = cname("id->verbs")
	resInitiatorDepth        = cname("initiator_depth")
	resListenerVerbs         = cname("listener->verbs")
	resLkey                  = cname("lkey")
	resMask                  = cname("mask")
	resMaxQpInitRdAtom       = cname("max_qp_init_rd_atom")
	resMaxQpRdAtom           = cname("max_qp_rd_atom")
	resMaxRdAtomic           = cname("max_rd_atomic")
	resOpcode                = cname("opcode")
	resParamUdAhAttr         = cname("param.ud.ah_attr")
	resParamUdPrivateDataLen = cname("param.ud.private_data_len")
	resParamUdQkey           = cname("param.ud.qkey")
	resParamUdQpNum          = cname("param.ud.qp_num")
	resPdHandle              = cname("pd->handle")
	resPrivateDataLen        = cname("private_data_len")
	resQkey                  = cname("qkey")
	resQpNum                 = cname("qp_num")
	resResponderResources    = cname("responder_resources")
	resRkey                  = cname("rkey")
	resSgidIndex             = cname("sgid_index")
	resSrcQp                 = cname("src_qp")
	resStatus                = cname("status")
	resWrId                  = cname("wr_id")
)

// Result values that are words, not C names or numbers.
var (
	valPSTCP         = text.Text{EN: "RDMA_PS_TCP (reliable connected)", ZH: "RDMA_PS_TCP（可靠连接）"}
	valPSUDP         = text.Text{EN: "RDMA_PS_UDP (unreliable datagram)", ZH: "RDMA_PS_UDP（不可靠数据报）"}
	valOneRecvPosted = text.Text{EN: "1 RECV WQE posted", ZH: "已提交 1 个 RECV WQE"}
	valQPNotCMs      = text.Text{EN: "NULL (the CM does not own this QP)", ZH: "NULL（这个 QP 不归 CM 管）"}
	valCreated       = text.Text{EN: "created", ZH: "已创建"}
	valSimulated     = text.Text{EN: "simulated", ZH: "模拟的（没有 fd）"}
	valUndefined     = text.Text{EN: "(undefined: the completion failed)", ZH: "（未定义：这个完成是失败的）"}
)

// yesNo is a boolean result: true or false, 是 or 否.
func yesNo(b bool) text.Text {
	if b {
		return text.Text{EN: "true", ZH: "是"}
	}
	return text.Text{EN: "false", ZH: "否"}
}
