package pcapview

import (
	"fmt"
	"time"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/wire"
)

// The notes' words follow the concept pages (concept-retry,
// concept-wire): one sentence each, what happened and what follows.

func retransmitNote(psn uint32) Note {
	return Note{NoteRetransmit, text.Text{
		EN: fmt.Sprintf("retransmission: PSN %d seen again — the requester went back (after a NAK PSN sequence error or an ACK timeout) and resends from the oldest unacknowledged PSN", psn),
		ZH: fmt.Sprintf("重传：PSN %d 又出现了——请求端退回去（收到 NAK PSN sequence error 或 ACK 超时之后），从最早未确认的 PSN 起重发", psn),
	}}
}

func rnrRetryNote(psn uint32) Note {
	return Note{NoteRetransmit, text.Text{
		EN: fmt.Sprintf("retransmission: PSN %d again, after the RNR NAK's wait — the RNR retry, counted by rnr_retry", psn),
		ZH: fmt.Sprintf("重传：PSN %d 再次出现，是等完 RNR NAK 要求的时间之后的 RNR 重试，由 rnr_retry 计数", psn),
	}}
}

func wentBackNote(psn uint32) Note {
	return Note{NoteRetransmit, text.Text{
		EN: fmt.Sprintf("retransmission: PSN %d comes after later PSNs — the requester went back to it (go-back-N); its first copy is not in the capture", psn),
		ZH: fmt.Sprintf("重传：PSN %d 出现在更大的 PSN 之后——请求端退回到它重发（go-back-N）；它的第一份不在抓包里", psn),
	}}
}

func gapNote(from, to uint32) Note {
	which := fmt.Sprintf("PSN %d", from)
	if to != from {
		which = fmt.Sprintf("PSNs %d-%d", from, to)
	}
	return Note{NoteGap, text.Text{
		EN: fmt.Sprintf("gap: %s never appeared — lost on the wire (or not captured); the responder answers the next one with a NAK PSN sequence error", which),
		ZH: fmt.Sprintf("缺口：%s 没有出现——在线上丢了（或没抓到）；响应端对下一个报文回 NAK PSN sequence error", which),
	}}
}

func responseGapNote(from, to uint32) Note {
	which, zh := fmt.Sprintf("response PSN %d", from), fmt.Sprintf("响应 PSN %d", from)
	if to != from {
		which, zh = fmt.Sprintf("response PSNs %d-%d", from, to), fmt.Sprintf("响应 PSN %d-%d", from, to)
	}
	return Note{NoteGap, text.Text{
		EN: fmt.Sprintf("gap: %s never appeared — lost on the wire (or not captured); nothing NAKs a lost response: the requester drops the ones after it and, when its ACK timer fires, asks again from the missing PSN", which),
		ZH: fmt.Sprintf("缺口：%s 没有出现——在线上丢了（或没抓到）；丢了的响应没有谁会 NAK：请求端丢掉它后面的响应，等 ACK 定时器超时后从缺的那个 PSN 起重新请求", zh),
	}}
}

func responseAgainNote(psn uint32) Note {
	return Note{NoteRetransmit, text.Text{
		EN: fmt.Sprintf("retransmission: response PSN %d seen again — the requester asked again, and a duplicate READ or atomic is answered again", psn),
		ZH: fmt.Sprintf("重传：响应 PSN %d 又出现了——请求端又请求了一次，重复的 READ 或原子操作会再回答一次", psn),
	}}
}

func dupACKNote(psn uint32) Note {
	return Note{NoteDupACK, text.Text{
		EN: fmt.Sprintf("ACK for PSN %d again: the responder saw a request it had already executed (its ACK was lost or late) and acknowledges it again without executing it twice", psn),
		ZH: fmt.Sprintf("又一次确认 PSN %d：响应端收到一个已经执行过的请求（它的 ACK 丢了或迟了），再确认一次，但不会执行第二次", psn),
	}}
}

// NAKMeaning says what an AETH syndrome that is not an ACK means, for
// the requester that receives it, in one sentence. It is the one place
// these words are declared: rdmatour explain shows them too.
func NAKMeaning(s wire.Syndrome) text.Text {
	if d, ok := s.RNRTimer(); ok {
		return text.Text{
			EN: fmt.Sprintf("RNR NAK (receiver not ready), timer code %d: the SEND or WRITE with immediate found no RECV posted; the requester waits %s (the responder's min_rnr_timer) and sends the NAK's PSN again, rnr_retry times, then IBV_WC_RNR_RETRY_EXC_ERR", s&0x1F, fmtWait(d)),
			ZH: fmt.Sprintf("RNR NAK（接收端未就绪），定时器编码 %d：SEND 或带立即数的 WRITE 没有找到已投递的 RECV；请求端等 %s（即响应端的 min_rnr_timer）后重发 NAK 里的 PSN，最多 rnr_retry 次，之后是 IBV_WC_RNR_RETRY_EXC_ERR", s&0x1F, fmtWait(d)),
		}
	}
	switch s {
	case wire.SyndromeNAKPSNSeqErr:
		return text.Text{
			EN: "NAK PSN sequence error: the responder expected the PSN this NAK carries and got a later one (a packet was lost); the requester goes back and resends from that PSN (go-back-N), counting down retry_cnt",
			ZH: "NAK PSN sequence error：响应端等的是这个 NAK 里的 PSN，来的却是后面的（有报文丢了）；请求端退回去从那个 PSN 起重发（go-back-N），并把 retry_cnt 减一",
		}
	case wire.SyndromeNAKInvReq:
		return text.Text{
			EN: "NAK invalid request: the responder cannot do this request (e.g. a READ or atomic its QP does not allow, or a SEND longer than the RECV); the requester's WR completes with IBV_WC_REM_INV_REQ_ERR and its QP goes to ERR",
			ZH: "NAK invalid request：响应端无法执行这个请求（例如它的 QP 不允许的 READ 或原子操作，或比 RECV 长的 SEND）；请求端的工作请求以 IBV_WC_REM_INV_REQ_ERR 完成，QP 进入 ERR",
		}
	case wire.SyndromeNAKRemAccess:
		return text.Text{
			EN: "NAK remote access error: the rkey, the address range or the MR's access flags do not allow this request; the requester's WR completes with IBV_WC_REM_ACCESS_ERR and its QP goes to ERR",
			ZH: "NAK remote access error：rkey、地址范围或 MR 的访问权限不允许这个请求；请求端的工作请求以 IBV_WC_REM_ACCESS_ERR 完成，QP 进入 ERR",
		}
	case wire.SyndromeNAKRemOpErr:
		return text.Text{
			EN: "NAK remote operational error: the responder accepted the request but failed to carry it out; the requester's WR completes with IBV_WC_REM_OP_ERR",
			ZH: "NAK remote operational error：响应端接受了请求，却没能完成它；请求端的工作请求以 IBV_WC_REM_OP_ERR 完成",
		}
	case wire.SyndromeNAKInvRDReq:
		return text.Text{
			EN: "NAK invalid RD request: for Reliable Datagram only, which RoCE end hosts do not use",
			ZH: "NAK invalid RD request：只用于 Reliable Datagram，而 RoCE 端点不用 RD",
		}
	}
	return text.Text{
		EN: fmt.Sprintf("AETH syndrome 0x%02X: %s (a reserved code: no RoCE end host should send it)", uint8(s), s),
		ZH: fmt.Sprintf("AETH syndrome 0x%02X：%s（保留的编码：RoCE 端点不应发送）", uint8(s), s),
	}
}

// fmtWait prints an RNR wait as the concept page does: 0.64 ms.
func fmtWait(d time.Duration) string {
	return fmt.Sprintf("%g ms", float64(d.Microseconds())/1000)
}

func nakNote(s wire.Syndrome) Note { return Note{NoteNAK, NAKMeaning(s)} }

func rejectNote(reason uint16) Note {
	name, _ := wire.RejectReasonName(reason)
	return Note{NoteReject, text.Text{
		EN: fmt.Sprintf("the connection was refused: reason %d, %s; the side that sent REQ gets RDMA_CM_EVENT_REJECTED with status %d (rdmatour explain %d)", reason, name, reason, reason),
		ZH: fmt.Sprintf("连接被拒绝：原因 %d，%s；发 REQ 的一端收到 RDMA_CM_EVENT_REJECTED，status 为 %d（rdmatour explain %d）", reason, name, reason, reason),
	}}
}

func mraNote() Note {
	return Note{NoteMRA, text.Text{
		EN: "MRA (message receipt acknowledgement): the peer's CM got the message, but its program has not answered yet (it has not called rdma_accept, or not fetched the event); the sender holds off its repeats",
		ZH: "MRA（消息收到确认）：对端的 CM 收到了消息，但它的程序还没回应（还没调用 rdma_accept，或还没取走事件）；发送端暂缓重发",
	}}
}

func badICRCNote() Note {
	return Note{NoteBadICRC, text.Text{
		EN: "the ICRC does not match this frame: the receiver drops it as corrupt (as if lost), or the capture changed its bytes",
		ZH: "ICRC 与这个帧不符：接收端把它当作损坏的报文丢弃（就像丢了一样），或者抓包改动了它的字节",
	}}
}

func cutNote(missing int) Note {
	return Note{NoteCut, text.Text{
		EN: fmt.Sprintf("the capture left out the last %d bytes of this frame (its snap length): capture again with tcpdump -s 0", missing),
		ZH: fmt.Sprintf("抓包时省掉了这个帧的最后 %d 字节（snap length 太小）：用 tcpdump -s 0 重新抓", missing),
	}}
}

func undecodedNote(err error) Note {
	return Note{NoteUndecoded, text.Text{
		EN: fmt.Sprintf("UDP 4791, but not a transport packet this reader decodes: %v", err),
		ZH: fmt.Sprintf("发往 UDP 4791，但不是本工具能解码的传输层报文：%v", err),
	}}
}
