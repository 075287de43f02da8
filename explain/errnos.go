package explain

import (
	"syscall"

	"github.com/rdmatour/rdmatour/text"
)

// errnos are the errnos an RDMA program meets, with their usual causes
// in verbs and rdma_cm calls. verbs.ErrnoName names them; an errno that
// verbs names but this table lacks is still explained by name and field.
var errnos = []entry{
	{int(syscall.EPERM), text.Text{EN: "operation not permitted", ZH: "不允许的操作"}, []Cause{
		cause("an operation that needs a capability the process lacks (e.g. CAP_NET_RAW for a raw packet QP)", "操作需要进程没有的权限（例如 raw packet QP 需要 CAP_NET_RAW）"),
		cause("ibv_reg_mr with a locked-memory limit of 0 (ulimit -l 0) and no CAP_IPC_LOCK", "锁定内存上限为 0（ulimit -l 0）又没有 CAP_IPC_LOCK 时调用 ibv_reg_mr"),
	}},
	{int(syscall.ENOMEM), text.Text{EN: "out of memory, or a queue is full", ZH: "内存不足，或队列已满"}, []Cause{
		lessonCause("never-signaled", "ibv_post_send or ibv_post_recv with the queue full: max_send_wr or max_recv_wr WRs not yet retired. On most NICs a send slot frees only when a completion of its WR or a later one is polled, so sends that are never signaled fill the queue for good (rxe frees a slot once its WR is acknowledged); signal one WR in every max_send_wr and poll it", "ibv_post_send 或 ibv_post_recv 时队列已满：有 max_send_wr 或 max_recv_wr 个工作请求还没退役。多数网卡上，只有 poll 到这个 WR 或更晚的 WR 的完成，发送槽位才空出来，所以从不 signal 的发送会把队列永远塞满（rxe 在 WR 被确认时就释放槽位）；每 max_send_wr 个 WR 里 signal 一个，并 poll 它"),
		lessonCause("signal-every-nth", "ibv_post_send with the send queue full although some WRs are signaled: every Nth with N above max_send_wr (as granted), or posting on before polling the signaled completion; the queue fills before a signaled WR gets in or is polled. Count the WRs posted since the last polled completion and poll before that count reaches max_send_wr", "虽然有些 WR 是 signaled 的，ibv_post_send 时发送队列还是满了：每 N 个 signal 一个但 N 超过实际得到的 max_send_wr，或者还没 poll 到 signaled 的完成就继续 post；signaled WR 进队或被 poll 之前队列就满了。数着上次 poll 到完成以来 post 了多少个 WR，在这个数达到 max_send_wr 之前先 poll"),
		lessonCause("memlock", "ibv_reg_mr beyond the locked-memory limit (ulimit -l) in a process without CAP_IPC_LOCK", "没有 CAP_IPC_LOCK 的进程里，ibv_reg_mr 超出了锁定内存的上限（ulimit -l）"),
		cause("ibv_create_qp or ibv_create_cq asking for more than the device or the kernel can give", "ibv_create_qp 或 ibv_create_cq 要的超过了设备或内核能给的"),
	}},
	{int(syscall.EACCES), text.Text{EN: "permission denied", ZH: "权限不够"}, []Cause{
		cause("/dev/infiniband/uverbs* or rdma_cm not accessible to this user (rdmatour doctor checks it)", "这个用户无法访问 /dev/infiniband/uverbs* 或 rdma_cm（rdmatour doctor 会检查）"),
	}},
	{int(syscall.EBUSY), text.Text{EN: "the object is still in use", ZH: "对象仍在使用"}, []Cause{
		cause("destroying a PD that still has MRs or QPs, a CQ that QPs still use, or a CM id with a QP: destroy the children first", "销毁仍有 MR 或 QP 的 PD、仍被 QP 使用的 CQ，或仍带 QP 的 CM id：先销毁下层对象"),
	}},
	{int(syscall.ENODEV), text.Text{EN: "no such device", ZH: "没有这个设备"}, []Cause{
		lessonCause("no-such-address", "the address is not on an RDMA device's network interface (as event->status -19 of RDMA_CM_EVENT_ADDR_ERROR after rdma_resolve_addr): for Soft-RoCE, rdma link add rxe0 type rxe netdev eth0 (rdmatour doctor)", "这个地址不在 RDMA 设备的网口上（rdma_resolve_addr 之后 RDMA_CM_EVENT_ADDR_ERROR 的 event->status -19）：Soft-RoCE 需要 rdma link add rxe0 type rxe netdev eth0（rdmatour doctor）"),
	}},
	{int(syscall.EINVAL), text.Text{EN: "invalid argument", ZH: "参数无效"}, []Cause{
		lessonCause("post-before-connect", "ibv_post_send on a QP not yet in RTS", "对还没进入 RTS 的 QP 调用 ibv_post_send"),
		lessonCause("inline-too-big", "ibv_post_send with IBV_SEND_INLINE on more bytes than the QP's granted cap.max_inline_data (read it back after ibv_create_qp); asking ibv_create_qp for more inline data than the device has (rxe: 512) is EINVAL too", "ibv_post_send 带 IBV_SEND_INLINE，字节数却超过 QP 实际得到的 cap.max_inline_data（ibv_create_qp 之后读回来）；向 ibv_create_qp 要的内联额度超过设备的上限（rxe：512）也是 EINVAL"),
		lessonCause("atomic-unaligned", "an atomic whose remote address is not 8-byte aligned", "原子操作的远端地址没有按 8 字节对齐"),
		lessonCause("remote-write-without-local", "ibv_reg_mr with IBV_ACCESS_REMOTE_WRITE or REMOTE_ATOMIC but no IBV_ACCESS_LOCAL_WRITE", "ibv_reg_mr 给了 IBV_ACCESS_REMOTE_WRITE 或 REMOTE_ATOMIC，却没有 IBV_ACCESS_LOCAL_WRITE"),
		cause("more SGEs than max_send_sge, or an opcode the QP type does not support", "SGE 多于 max_send_sge，或 QP 类型不支持的 opcode"),
		lessonCause("rtr-mask", "ibv_modify_qp with a mask that lacks an attribute the transition requires (IBV_QP_AV at RTR) or carries one it does not take: the kernel does not say which", "ibv_modify_qp 的掩码缺了这次状态转换要求的属性（例如 RTR 的 IBV_QP_AV），或带了它不接受的属性：内核不说是哪一个"),
		lessonCause("wrong-gid-index", "ibv_modify_qp to RTR with an sgid_index whose GID cannot reach the peer's dgid (the IPv6 link-local GID toward an IPv4 peer), or with is_global = 0 on RoCE", "推 RTR 时 ibv_modify_qp 用的 sgid_index 对应的 GID 到不了对端的 dgid（IPv6 链路本地 GID 对 IPv4 对端），或者在 RoCE 上 is_global = 0"),
		cause("rdma_connect before the route is resolved, or with more than 56 bytes of private data", "路由还没解析就 rdma_connect，或私有数据超过 56 字节"),
	}},
	{int(syscall.ENODATA), text.Text{EN: "no data available", ZH: "没有数据"}, []Cause{
		cause("ibv_modify_qp with an sgid_index at which the port's GID table has no entry (rdma_get_gid_attr); ibv_query_gid reads such a slot as ::", "ibv_modify_qp 的 sgid_index 在端口的 GID 表里没有条目（rdma_get_gid_attr）；ibv_query_gid 把这样的位置读成 ::"),
	}},
	{int(syscall.EAGAIN), text.Text{EN: "try again: nothing is ready yet", ZH: "稍后再试：还没有东西就绪"}, []Cause{
		cause("rdma_get_cm_event or ibv_get_cq_event on a non-blocking channel with no event waiting", "在非阻塞的通道上调用 rdma_get_cm_event 或 ibv_get_cq_event，而没有事件在等"),
		lessonCause("lost-wakeup", "ibv_get_cq_event finds no event although the CQ holds a completion: it arrived before ibv_req_notify_cq armed the CQ (poll, then arm); arm, then poll, then sleep", "CQ 里明明有完成，ibv_get_cq_event 却等不到事件：完成在 ibv_req_notify_cq 挂通知之前就到了（先 poll 后挂通知）；应先挂通知，再 poll，再睡"),
	}},
	{int(syscall.EADDRINUSE), text.Text{EN: "address already in use", ZH: "地址已被占用"}, []Cause{
		cause("rdma_bind_addr on a port another rdma_cm listener holds (another server still runs)", "rdma_bind_addr 的端口已被另一个 rdma_cm 监听者占用（另一个 server 还在运行）"),
	}},
	{int(syscall.EADDRNOTAVAIL), text.Text{EN: "address not available", ZH: "地址不可用"}, []Cause{
		cause("rdma_bind_addr or a source address that is not configured on this host", "rdma_bind_addr 或源地址不是这台主机上配置的地址"),
	}},
	{int(syscall.ETIMEDOUT), text.Text{EN: "timed out", ZH: "超时"}, []Cause{
		cause("rdma_resolve_addr or rdma_resolve_route got no answer in time (no ARP reply: wrong address, host down)", "rdma_resolve_addr 或 rdma_resolve_route 没有按时得到回答（没有 ARP 回应：地址不对、主机没开）"),
		cause("as event->status -110 of RDMA_CM_EVENT_UNREACHABLE: the server never answered the REQ", "作为 RDMA_CM_EVENT_UNREACHABLE 的 event->status -110：server 从未回答 REQ"),
	}},
	{int(syscall.EOPNOTSUPP), text.Text{EN: "operation not supported", ZH: "不支持的操作"}, []Cause{
		cause("the device or its provider does not implement this verb or option", "设备或其 provider 没有实现这个 verb 或选项"),
	}},
}
