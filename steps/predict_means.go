package steps

import (
	"syscall"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// What each outcome a lesson offers would mean: a wrong pick is shown
// next to what it would have taken, and what happened next to why
// (the statuses as ibv_poll_cq(3) and the InfiniBand spec define them).

var statusMeans = map[verbs.WCStatus]text.Text{
	verbs.WCSuccess: {EN: "the work request would have completed with no error",
		ZH: "这个 WR 会正常完成，没有错误"},
	verbs.WCWRFlushErr: {EN: "the QP was already in the error state, so the work request was flushed without being carried out",
		ZH: "QP 已经处于错误状态，这个 WR 没有执行就被 flush 掉了"},
	verbs.WCRemAccessErr: {EN: "the responder refused the access: the rkey, the address range or the MR's remote rights do not allow it",
		ZH: "响应端拒绝了这次访问：rkey、地址范围或 MR 的远端权限不允许"},
	verbs.WCRemInvReqErr: {EN: "the responder found the request itself invalid for its QP (an operation or a length it does not allow)",
		ZH: "响应端认为这个请求本身对它的 QP 无效（不允许的操作或长度）"},
	verbs.WCLocProtErr: {EN: "this side's own scatter/gather entry failed its check: its lkey, address or length does not match a local MR",
		ZH: "本端自己的 SGE 没通过检查：它的 lkey、地址或长度和本地 MR 对不上"},
	verbs.WCRNRRetryExcErr: {EN: "the responder answered RNR NAK (no RECV posted) until the requester's rnr_retry_count was used up",
		ZH: "响应端一直回 RNR NAK（没有 post RECV），直到请求端的 rnr_retry_count 用完"},
	verbs.WCRetryExcErr: {EN: "the responder did not answer at all (gone, or the packets lost) until retry_count was used up",
		ZH: "响应端根本没有应答（已经离开，或报文丢了），直到 retry_count 用完"},
	verbs.WCRemOpErr: {EN: "the responder took the request but could not carry it out (for example its RECV buffer was too small)",
		ZH: "响应端收下了请求却无法完成（例如它的 RECV buffer 太小）"},
}

var errnoMeans = map[syscall.Errno]text.Text{
	0: {EN: "the library would have queued the work request for the NIC",
		ZH: "库会把这个 WR 排进队列交给网卡"},
	syscall.EINVAL: {EN: "the library refuses the work request at once, before anything is sent: a field or the QP's state does not allow it",
		ZH: "库当场拒绝这个 WR，什么都没发出：某个字段或 QP 的状态不允许"},
	syscall.EFAULT: {EN: "an address the call was given could not be read",
		ZH: "传给调用的某个地址读不了"},
	syscall.EOPNOTSUPP: {EN: "the device does not do this operation at all",
		ZH: "设备根本不支持这个操作"},
	syscall.EAGAIN: {EN: "the send queue is full for now",
		ZH: "发送队列暂时满了"},
	syscall.ENOTCONN: {EN: "the QP is not connected",
		ZH: "QP 没有连接"},
}
