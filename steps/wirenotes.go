package steps

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The timeline's words for what a NIC did on its own must follow what
// actually happened: the requester's rnr_retry_count decides whether an
// RNR NAK is retried, and a WRITE the responder NAKed wrote nothing.

// rnrNAKNote is the timeline's detail for an RNR NAK this side sent
// (the responder, which cannot know the requester's rnr_retry_count) or
// received (the requester, whose own rnr_retry_count says what
// follows). Called with s.mu held.
func (s *Session) rnrNAKNote(sent bool) text.Text {
	if sent {
		return text.Text{EN: "no RECV posted yet: this side's NIC refuses the SEND; whether it comes again is the requester's rnr_retry_count",
			ZH: "还没有 post RECV：本端网卡拒绝了这个 SEND；会不会重发，由请求端的 rnr_retry_count 决定"}
	}
	switch n := s.cfg.RNRRetry; n {
	case 0:
		return text.Text{EN: "no RECV posted yet, and rnr_retry_count = 0: the requester does not retry, the SEND fails at once",
			ZH: "还没有 post RECV，而 rnr_retry_count = 0：请求端不重试，这个 SEND 立即失败"}
	case MaxRNRRetry:
		return text.Text{EN: "no RECV posted yet: with rnr_retry_count = 7 the requester waits and retries until one is",
			ZH: "还没有 post RECV：rnr_retry_count = 7，请求端等一会儿再重试，直到对端 post 了 RECV"}
	default:
		return text.Text{EN: fmt.Sprintf("no RECV posted yet: the requester waits and retries, at most %d times (rnr_retry_count)", n),
			ZH: fmt.Sprintf("还没有 post RECV：请求端等一会儿再重试，最多 %d 次（rnr_retry_count）", n)}
	}
}

// refusedWrite rewords the timeline's last RDMA WRITE this side's NIC
// received, now that the NIC answered it with the NAK syndrome: it
// wrote nothing. Called with s.mu held.
func (s *Session) refusedWrite(syndrome uint8) {
	why := text.Text{EN: "the request is invalid", ZH: "请求无效"}
	switch syndrome {
	case verbs.SyndromeNAKRemAccess:
		why = text.Text{EN: "the rkey, address or length is not allowed", ZH: "rkey、地址或长度不被允许"}
	case verbs.SyndromeNAKRemOpErr:
		why = text.Text{EN: "it could not carry the operation out", ZH: "它无法完成这个操作"}
	}
	for i := len(s.timeline) - 1; i >= 0; i-- {
		e := &s.timeline[i]
		if e.fromWire && strings.HasPrefix(e.Label, "RDMA WRITE") && !e.refused {
			role := s.cfg.Role.String()
			e.Detail = fmt.Sprintf("the %s's NIC checks the rkey: %s, so it writes nothing and answers with a NAK", role, why.EN)
			e.DetailZH = fmt.Sprintf("%s 的网卡检查 rkey：%s，所以什么也没写，回了一个 NAK", role, why.ZH)
			e.refused = true
			return
		}
	}
}
