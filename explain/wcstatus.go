package explain

import "github.com/rdmatour/rdmatour/text"

// wcStatuses are the work completion statuses an RDMA program meets, by
// number (enum ibv_wc_status); verbs.WCStatus names them. A status not
// here is still explained by its name and field.
var wcStatuses = []entry{
	{0, text.Text{EN: "the work request completed", ZH: "工作请求成功完成"}, nil},
	{1, text.Text{EN: "local length error: a length did not fit", ZH: "本端长度错误：长度不合适"}, []Cause{
		cause("on the responder: the SEND that arrived is longer than the RECV posted for it", "在响应端：到达的 SEND 比为它投递的 RECV 长"),
		cause("on the requester: the SGEs add up to more than the port's message size limit", "在请求端：SGE 的总长度超过了端口的消息长度上限"),
	}},
	{2, text.Text{EN: "local QP operation error: the WR does not suit the QP", ZH: "本端 QP 操作错误：工作请求与 QP 不相符"}, []Cause{
		cause("an inline WR longer than max_inline_data, or a WR the QP's type cannot carry", "内联数据超过 max_inline_data，或 QP 类型不支持的工作请求"),
		cause("on rxe: a local SGE whose lkey no MR has (lkey 0, a stale or mistyped lkey), where most hardware says local protection error", "在 rxe 上：本地 SGE 的 lkey 没有任何 MR 对应（lkey 0、过期或写错的 lkey），多数硬件对此报 local protection error"),
	}},
	{4, text.Text{EN: "local protection error: an SGE does not lie inside a local MR this QP may use", ZH: "本端保护错误：某个 SGE 不在这个 QP 可用的本地 MR 里"}, []Cause{
		cause("a wrong lkey, an address outside the MR, or an MR from another PD", "lkey 错了、地址超出 MR，或 MR 属于另一个 PD"),
		cause("a RECV or READ destination in an MR without IBV_ACCESS_LOCAL_WRITE", "RECV 或 READ 的目的缓冲区所在 MR 没有 IBV_ACCESS_LOCAL_WRITE"),
	}},
	{5, text.Text{EN: "work request flushed: the QP was already in ERR, so this WR never ran", ZH: "工作请求被 flush：QP 已经处于 ERR，这个工作请求从未执行"}, []Cause{
		lessonCause("bad-rkey", "an earlier WR failed (its completion came first: read that one), and every WR still queued is flushed after it", "之前的某个工作请求失败了（它的完成先到，先看那一个），其后仍在队列里的工作请求都被 flush"),
		cause("the QP was moved to ERR or destroyed, or the peer disconnected, while RECVs were still posted", "QP 被改到 ERR 或被销毁，或对端断开，而 RECV 还在队列里"),
		lessonCause("recover-qp", "a WR posted to a QP still in ERR after the error: drain the CQ, then RESET, INIT, RTR and RTS on both sides before posting again", "出错后又 post 到仍处于 ERR 的 QP 上：先排空 CQ，再在两端都做 RESET、INIT、RTR、RTS，然后才能再 post"),
	}},
	{7, text.Text{EN: "bad response error: the responder's answer was not what the request allows", ZH: "响应错误：响应端的回答不符合请求"}, nil},
	{8, text.Text{EN: "local access error: a protection error on the local side of an incoming request", ZH: "本端访问错误：处理进来的请求时本端发生保护错误"}, nil},
	{9, text.Text{EN: "remote invalid request error: the responder refused the request as invalid (NAK invalid request)", ZH: "远端无效请求错误：响应端认为请求无效而拒绝（NAK invalid request）"}, []Cause{
		lessonCause("read-depth-zero", "a READ or atomic to a QP that allows none: the connection gave it no responder resources (initiator_depth 0 on the requester's side)", "对一个不允许 READ 或原子操作的 QP 发起它们：连接时没有给它响应端资源（请求端一侧 initiator_depth 为 0）"),
		cause("a SEND longer than the RECV the responder posted", "SEND 比响应端投递的 RECV 长"),
		lessonCause("path-mtu-mismatch", "the two QPs were given different path_mtu and the message is longer than the smaller: the responder's packets are not the length its own path MTU expects", "两个 QP 的 path_mtu 不一样，消息又比较小的那个长：响应端收到的报文长度不是它自己的路径 MTU 所期待的"),
	}},
	{10, text.Text{EN: "remote access error: the responder's MR does not allow this access (NAK remote access error)", ZH: "远端访问错误：响应端的 MR 不允许这次访问（NAK remote access error）"}, []Cause{
		lessonCause("bad-rkey", "the rkey is not the peer's (a local lkey, a stale or byte-swapped rkey)", "rkey 不是对端的（用了本地的 lkey、过期的或字节序错的 rkey）"),
		lessonCause("out-of-bounds", "the address range runs past the end of the remote MR", "地址范围超出了远端 MR 的末尾"),
		lessonCause("no-remote-write", "the remote MR was registered without IBV_ACCESS_REMOTE_WRITE", "远端 MR 注册时没有 IBV_ACCESS_REMOTE_WRITE"),
		lessonCause("htonl-address", "the remote address was sent through htonl and lost its top 32 bits", "远端地址经过了 htonl，丢掉了高 32 位"),
		lessonCause("no-remote-read", "a READ from an MR without IBV_ACCESS_REMOTE_READ", "从没有 IBV_ACCESS_REMOTE_READ 的 MR 做 READ"),
		lessonCause("no-remote-atomic", "an atomic on an MR without IBV_ACCESS_REMOTE_ATOMIC", "对没有 IBV_ACCESS_REMOTE_ATOMIC 的 MR 做原子操作"),
	}},
	{11, text.Text{EN: "remote operation error: the responder accepted the request but could not carry it out (NAK remote operational error)", ZH: "远端操作错误：响应端接受了请求却没能完成（NAK remote operational error）"}, nil},
	{12, text.Text{EN: "transport retry counter exceeded: the requester sent the request retry_cnt + 1 times and got neither an ACK nor a NAK; its QP is now in ERR, the peer's QP is untouched", ZH: "传输重试次数用尽：请求端把请求发了 retry_cnt + 1 次，既没收到 ACK 也没收到 NAK；它的 QP 进入 ERR，对端的 QP 不受影响"}, []Cause{
		lessonCause("peer-vanished", "the peer's QP is gone: its process exited or destroyed the QP before the request arrived, or its host dropped off the network (on rxe the WRITE fails about 2.5 s later under QEMU)", "对端的 QP 没了：请求到达前它的进程退出了或销毁了 QP，或者它的主机从网络上消失了（在 QEMU 里的 rxe 上，WRITE 大约 2.5 秒后失败）"),
		cause("the packets do not get through: a firewall dropping UDP 4791, a wrong GID or route, a link down", "报文过不去：防火墙丢弃 UDP 4791、GID 或路由不对、链路断了"),
		lessonCause("retry-zero", "loss with retry_cnt 0: a single lost packet or ACK is fatal", "retry_cnt 为 0 时丢包：丢一个报文或 ACK 就失败"),
		lessonCause("lost-read-response", "READ responses lost again and again: nothing NAKs a lost response, so each loss costs an ACK timeout and one retry, and after retry_cnt of them the READ fails (the lesson loses one, and the READ completes)", "READ 响应一再丢失：丢了的响应没有谁会 NAK，每丢一次就要等一个 ACK 超时、重试一次，重试 retry_cnt 次之后 READ 失败（这一课只丢一个，READ 照样完成）"),
		lessonCause("recover-one-side", "the peer's QP is still in ERR or RESET, which drop every request: after an error that put both QPs in ERR, only this side was brought back", "对端的 QP 仍在 ERR 或 RESET，它们丢弃所有请求：一个错误让两端的 QP 都进了 ERR，却只恢复了本端"),
	}},
	{13, text.Text{EN: "RNR retry counter exceeded: the responder kept answering RNR NAK (no RECV posted) and rnr_retry ran out", ZH: "RNR 重试次数用尽：响应端一直回 RNR NAK（没有已投递的 RECV），rnr_retry 用完了"}, []Cause{
		lessonCause("no-recv", "the responder had not posted a RECV when the SEND (or WRITE with immediate) arrived, and rnr_retry_count was too small to wait for it", "SEND（或带立即数的 WRITE）到达时响应端还没投递 RECV，而 rnr_retry_count 太小，等不到它"),
	}},
	{16, text.Text{EN: "remote aborted error: the responder aborted the operation", ZH: "远端中止错误：响应端中止了这个操作"}, nil},
	{19, text.Text{EN: "fatal error: the device or the QP hit an error it cannot recover from", ZH: "致命错误：设备或 QP 遇到无法恢复的错误"}, nil},
	{20, text.Text{EN: "response timeout error: a response did not come back in time", ZH: "响应超时错误：响应没有按时返回"}, nil},
	{21, text.Text{EN: "general error: the device reports an error it has no other status for", ZH: "一般错误：设备报告了一个没有别的状态可用的错误"}, nil},
}
