package explain

import "github.com/rdmatour/rdmatour/text"

// syndromes are the causes of the NAK codes; what each NAK means is
// pcapview.NAKMeaning's, the words rdmatour pcap prints under it. An ACK
// (0x00-0x1F, the low five bits a credit count) and an RNR NAK
// (0x20-0x3F, the low five bits a timer code) are described in
// syndromeMeaning.
var syndromes = []entry{
	{0x60, text.Text{}, []Cause{
		lessonCause("lost-write", "a packet lost on the wire: the requester goes back to the NAK's PSN and resends (go-back-N); repeated losses end in IBV_WC_RETRY_EXC_ERR", "报文在线上丢了：请求端退回 NAK 里的 PSN 重发（go-back-N）；一再丢包最终是 IBV_WC_RETRY_EXC_ERR"),
	}},
	{0x61, text.Text{}, []Cause{
		lessonCause("read-depth-zero", "a READ or atomic to a QP given no responder resources", "对没有响应端资源的 QP 发起 READ 或原子操作"),
	}},
	{0x62, text.Text{}, []Cause{
		lessonCause("bad-rkey", "a wrong rkey", "rkey 错了"),
		lessonCause("out-of-bounds", "an address past the end of the MR", "地址超出了 MR 的末尾"),
		lessonCause("no-remote-write", "an MR without IBV_ACCESS_REMOTE_WRITE", "MR 没有 IBV_ACCESS_REMOTE_WRITE"),
	}},
}

// rnrCauses are the causes of every RNR NAK, whatever its timer.
var rnrCauses = []Cause{
	lessonCause("no-recv", "a SEND (or WRITE with immediate) arrived before the responder posted a RECV; the requester waits the timer and retries, rnr_retry times (7: forever), then IBV_WC_RNR_RETRY_EXC_ERR", "SEND（或带立即数的 WRITE）在响应端投递 RECV 之前到达；请求端等待定时器的时间后重试，最多 rnr_retry 次（7 为无限次），之后是 IBV_WC_RNR_RETRY_EXC_ERR"),
}
