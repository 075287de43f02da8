package exercise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The wire and the device counters: what the NICs did, as rdmatour's
// side saw it. The simulated NIC and a capture on a real device give
// packets; Soft-RoCE between two processes of one machine gives none
// (rxe loops them back inside the kernel), but it counts.

// wireEvidence is what rdmatour's side saw on the wire: a NAK, the key
// and the address the WRITE carried held against remote_info, the RNR
// NAKs and the retransmissions.
func wireEvidence(e Exercise, p steps.Snapshot) []text.Text {
	var out []text.Text
	if t, ok := nakEvidence(e, p); ok {
		out = append(out, t)
	}
	if n := countPackets(p.Packets, isRNRNAK); n > 0 {
		out = append(out, text.Text{EN: fmt.Sprintf("on the wire: %d RNR NAKs (a SEND arrived where no RECV was posted; the sender tried again after each)", n),
			ZH: fmt.Sprintf("线上：%d 个 RNR NAK（SEND 到达时对端没有 post 过 RECV；发送端每次都会重试）", n)})
	}
	if n := retransmissions(p.Packets); n > 0 {
		out = append(out, text.Text{EN: fmt.Sprintf("on the wire: %d packets sent again with a PSN already sent (no ACK came in time)", n),
			ZH: fmt.Sprintf("线上：%d 个包用已经发过的 PSN 重发了（没有及时等到 ACK）", n)})
	}
	return out
}

// nakEvidence names the first NAK and, for a WRITE or an atomic, what
// the request carried against what remote_info said.
func nakEvidence(e Exercise, p steps.Snapshot) (text.Text, bool) {
	i := slices.IndexFunc(p.Packets, isNAK)
	if i < 0 {
		return text.Text{}, false
	}
	nak := p.Packets[i]
	name := verbs.SyndromeName(nak.AETH.Syndrome)
	req, found := requestFor(p.Packets[:i], nak)
	if !found {
		return text.Text{EN: "on the wire: a " + name, ZH: "线上：一个 " + name}, true
	}
	w := whoAnswered(e, nak)
	op := verbs.OpcodeName(req.Opcode)
	head := text.Text{EN: fmt.Sprintf("the %s's NIC answered %s %s with %s", w.nic, w.whose, op, name),
		ZH: fmt.Sprintf("%s 的网卡用 %s 回应了%s %s", w.nic, name, w.whoseZH, op)}
	if p.Remote == nil || (req.RETH == nil && req.AtomicETH == nil) {
		return head, true
	}
	va, rkey, length := target(req)
	info := p.Remote.Info
	switch {
	case rkey != info.RKey:
		return text.Text{EN: fmt.Sprintf("%s: the rkey 0x%x %s is not the server's rkey 0x%x, which came in remote_info", head.EN, rkey, w.sent, info.RKey),
			ZH: fmt.Sprintf("%s：%s的 rkey 0x%x 不是 server 的 rkey 0x%x（它在 remote_info 里）", head.ZH, w.sentZH, rkey, info.RKey)}, true
	case va < info.Addr || va+uint64(length) > info.Addr+uint64(info.Size):
		return text.Text{EN: fmt.Sprintf("%s: the rkey 0x%x is right, but the %d bytes at 0x%x %s are not inside the server's buffer (0x%x, %d bytes, in remote_info)", head.EN, rkey, length, va, w.sent, info.Addr, info.Size),
			ZH: fmt.Sprintf("%s：rkey 0x%x 是对的，但%s的 0x%x 处 %d 字节不在 server 的 buffer 里（remote_info 里是 0x%x，%d 字节）", head.ZH, rkey, w.sentZH, va, length, info.Addr, info.Size)}, true
	}
	return text.Text{EN: fmt.Sprintf("%s (%d bytes at 0x%x, rkey 0x%x)", head.EN, length, va, rkey),
		ZH: fmt.Sprintf("%s（0x%x 处 %d 字节，rkey 0x%x）", head.ZH, va, length, rkey)}, true
}

// answerer is who refused whose request, as the verdict says it.
type answerer struct {
	nic            string // "server" or "client": whose NIC sent the NAK
	whose, whoseZH string // whose request it was
	sent, sentZH   string // who sent the request's fields
}

// whoAnswered: a NAK that went out from rdmatour's side is its NIC
// refusing the learner's request; one that came in is the learner's NIC
// refusing rdmatour's.
func whoAnswered(e Exercise, nak steps.WirePacket) answerer {
	if nak.Outbound {
		return answerer{nic: e.Role.Peer().String(), whose: "your", whoseZH: "你的", sent: "you sent", sentZH: "你发出"}
	}
	return answerer{nic: e.Role.String(), whose: "rdmatour's", whoseZH: " rdmatour 的", sent: "rdmatour sent (from your remote_info)", sentZH: "rdmatour（按你的 remote_info）发出"}
}

// requestFor is the request a NAK answers: the last one before it that
// went the other way with the NAK's PSN.
func requestFor(pkts []steps.WirePacket, nak steps.WirePacket) (steps.WirePacket, bool) {
	for i := len(pkts) - 1; i >= 0; i-- {
		if p := pkts[i]; p.Outbound != nak.Outbound && p.AETH == nil && p.CM == "" && p.PSN == nak.PSN {
			return p, true
		}
	}
	return steps.WirePacket{}, false
}

// target is the address, key and length a request carried.
func target(p steps.WirePacket) (va uint64, rkey, length uint32) {
	if p.AtomicETH != nil {
		return p.AtomicETH.VA, p.AtomicETH.RKey, 8
	}
	return p.RETH.VA, p.RETH.RKey, p.RETH.DMALen
}

func isNAK(p steps.WirePacket) bool {
	return p.AETH != nil && p.AETH.Syndrome&0xE0 == verbs.SyndromeNAKPSNSeqErr
}

func isRNRNAK(p steps.WirePacket) bool {
	return p.AETH != nil && p.AETH.Syndrome&0xE0 == verbs.SyndromeRNRNAKBase
}

func countPackets(pkts []steps.WirePacket, match func(steps.WirePacket) bool) int {
	n := 0
	for _, p := range pkts {
		if match(p) {
			n++
		}
	}
	return n
}

// retransmissions counts requests sent again: the same QP and PSN seen
// once more in the same direction.
func retransmissions(pkts []steps.WirePacket) int {
	type key struct {
		out bool
		qp  uint32
		psn uint32
	}
	seen := map[key]bool{}
	n := 0
	for _, p := range pkts {
		if p.AETH != nil || p.CM != "" {
			continue
		}
		k := key{p.Outbound, p.DestQP, p.PSN}
		if seen[k] {
			n++
		}
		seen[k] = true
	}
	return n
}

// counterMeaning is what each counter that matters for a verdict says,
// by rxe's hw_counters names.
var counterMeaning = []struct {
	name string
	says text.Text
}{
	{"rcvd_rnr_err", text.Text{EN: "RNR NAKs received: a SEND found no RECV posted", ZH: "收到的 RNR NAK：SEND 到达时没有 post 过的 RECV"}},
	{"send_rnr_err", text.Text{EN: "RNR NAKs sent: this device had no RECV for a SEND", ZH: "发出的 RNR NAK：这台设备收到 SEND 时没有 RECV"}},
	{"retry_rnr_exceeded_err", text.Text{EN: "sends given up after the RNR retries", ZH: "RNR 重试用完后放弃的发送"}},
	{"completer_retry_err", text.Text{EN: "requests sent again after no ACK came", ZH: "没等到 ACK 而重发的请求"}},
	{"retry_exceeded_err", text.Text{EN: "requests given up after every retry (transport retry counter exceeded)", ZH: "重试全部用完后放弃的请求（transport retry counter exceeded）"}},
	{"rcvd_seq_err", text.Text{EN: "NAKs for a PSN out of sequence", ZH: "PSN 乱序的 NAK"}},
	{"out_of_seq_request", text.Text{EN: "requests that came out of sequence", ZH: "乱序到达的请求"}},
	{"duplicate_request", text.Text{EN: "requests that came twice", ZH: "重复到达的请求"}},
}

// counterEvidence names the device counters that moved during the run.
// On Soft-RoCE both programs use one device, so the counts are both
// sides'.
func counterEvidence(ev Evidence) []text.Text {
	var en, zh []string
	for _, c := range counterMeaning {
		if n := ev.Counters[c.name]; n > 0 {
			en = append(en, fmt.Sprintf("%s +%d (%s)", c.name, n, c.says.EN))
			zh = append(zh, fmt.Sprintf("%s +%d（%s）", c.name, n, c.says.ZH))
		}
	}
	if len(en) == 0 {
		return nil
	}
	return []text.Text{{EN: "the device's counters (" + ev.CountersOf + ", every QP on it, yours and rdmatour's included) during the run: " + strings.Join(en, "; "),
		ZH: "运行期间设备计数器（" + ev.CountersOf + "，设备上所有 QP 的总和，包括你的和 rdmatour 的）的变化：" + strings.Join(zh, "；")}}
}

// remoteInfoEvidence is remote_info as rdmatour's client decoded it: what
// the learner's server handed out.
func remoteInfoEvidence(e Exercise, p steps.Snapshot) []text.Text {
	if e.Role != steps.Server || p.Role != steps.Client || p.Remote == nil {
		return nil
	}
	i := p.Remote.Info
	return []text.Text{{EN: fmt.Sprintf("remote_info as your server sent it (rdmatour's client decoded it): addr 0x%x, rkey 0x%x, size %d", i.Addr, i.RKey, i.Size),
		ZH: fmt.Sprintf("你的 server 发出的 remote_info（rdmatour 的 client 解出来的）：addr 0x%x，rkey 0x%x，size %d", i.Addr, i.RKey, i.Size)}}
}
