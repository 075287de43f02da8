// Package explain says what an RDMA error code means: an errno from a
// verbs or rdma_cm call, a work completion's status, a CM event or its
// status, or an AETH syndrome seen on the wire. For each reading of the
// code it says what it is, which field it comes from, and its usual
// causes, each with the lesson that reproduces it.
//
// The codes' names come from verbs (errno names, ibv_wc_status_str,
// rdma_event_str) and wire (REJ reasons, syndromes); the meanings and
// causes are declared once, in this package's tables; the lessons are
// the steps registry's.
package explain

import (
	"github.com/rdmatour/rdmatour/text"
)

// Kind is the field a code comes from.
type Kind int

const (
	KindErrno    Kind = iota // errno, or what a verbs call returned
	KindWCStatus             // struct ibv_wc.status
	KindCMEvent              // struct rdma_cm_event.event
	KindCMStatus             // struct rdma_cm_event.status
	KindSyndrome             // the AETH syndrome of an ACKNOWLEDGE on the wire
)

// Meaning is one reading of a code.
type Meaning struct {
	Kind   Kind
	Number int
	Name   string // the C name: ENOMEM, IBV_WC_RETRY_EXC_ERR, ...
	// Printed is what the library prints for it (strerror,
	// ibv_wc_status_str, rdma_event_str), "" when the same as Name.
	Printed string
	What    text.Text
	Causes  []Cause
}

// Cause is one usual reason for a code, and the lesson (a name in the
// steps registry) that makes it happen on purpose, or "".
type Cause struct {
	Why    text.Text
	Lesson string
}

// entry is one row of a meaning table: the number, what it is, and its
// causes; the names come from verbs or wire.
type entry struct {
	n      int
	what   text.Text
	causes []Cause
}

// cause is a Cause without a lesson; lessonCause one with.
func cause(en, zh string) Cause { return Cause{Why: text.Text{EN: en, ZH: zh}} }

func lessonCause(lesson, en, zh string) Cause {
	return Cause{Why: text.Text{EN: en, ZH: zh}, Lesson: lesson}
}

// Field says where a code of kind k comes from, and what else to read
// next to it.
func (k Kind) Field() text.Text {
	switch k {
	case KindErrno:
		return text.Text{
			EN: "errno: ibv_post_send, ibv_post_recv and ibv_modify_qp return it; ibv_reg_mr, ibv_create_qp and the other create calls return NULL and set errno; rdma_* calls return -1 and set errno",
			ZH: "errno：ibv_post_send、ibv_post_recv 和 ibv_modify_qp 直接返回它；ibv_reg_mr、ibv_create_qp 等创建调用返回 NULL 并设置 errno；rdma_* 调用返回 -1 并设置 errno",
		}
	case KindWCStatus:
		return text.Text{
			EN: "wc.status of a struct ibv_wc that ibv_poll_cq filled in (ibv_wc_status_str prints it). When status is not IBV_WC_SUCCESS only wr_id, status, qp_num and vendor_err are valid (ibv_poll_cq(3)): opcode and byte_len mean nothing, so find the WR by wr_id. vendor_err is the device's own error syndrome, for its vendor's documentation",
			ZH: "ibv_poll_cq 填入的 struct ibv_wc 的 wc.status（ibv_wc_status_str 把它打印成文字）。status 不是 IBV_WC_SUCCESS 时只有 wr_id、status、qp_num 和 vendor_err 有效（ibv_poll_cq(3)）：opcode 和 byte_len 没有意义，要靠 wr_id 找到是哪个工作请求。vendor_err 是设备自己的错误码，去查厂商的文档",
		}
	case KindCMEvent:
		return text.Text{
			EN: "event->event of a struct rdma_cm_event from rdma_get_cm_event (rdma_event_str prints its name); read event->status with it",
			ZH: "rdma_get_cm_event 得到的 struct rdma_cm_event 的 event->event（rdma_event_str 打印它的名字）；要和 event->status 一起看",
		}
	case KindCMStatus:
		return text.Text{
			EN: "event->status of a struct rdma_cm_event: 0 on success, a negative errno, or a transport value; for RDMA_CM_EVENT_REJECTED on InfiniBand and RoCE it is the reason the peer's CM put in its REJ (rdma_get_cm_event(3))",
			ZH: "struct rdma_cm_event 的 event->status：成功为 0，否则是负的 errno 或传输层的值；InfiniBand 和 RoCE 上的 RDMA_CM_EVENT_REJECTED 里，它是对端 CM 在 REJ 里写的原因（rdma_get_cm_event(3)）",
		}
	}
	return text.Text{
		EN: "the syndrome byte of the AETH in an ACKNOWLEDGE packet on the wire (rdmatour pcap, the wire view, Wireshark); a program never sees it, only the wc.status it leads to",
		ZH: "线上 ACKNOWLEDGE 报文里 AETH 的 syndrome 字节（rdmatour pcap、线上报文面板、Wireshark 里能看到）；程序看不到它，只能看到它导致的 wc.status",
	}
}

// Label names the kind in a reading's heading: "errno 12".
func (k Kind) Label() text.Text {
	switch k {
	case KindErrno:
		return text.Same("errno")
	case KindWCStatus:
		return text.Same("wc.status")
	case KindCMEvent:
		return text.Text{EN: "CM event", ZH: "CM 事件"}
	case KindCMStatus:
		return text.Same("event->status")
	}
	return text.Same("AETH syndrome")
}
