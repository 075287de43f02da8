package pane

import (
	"fmt"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// iwarpLines decodes one iWARP message the capture read from the TCP
// stream, as packetLines does a RoCE packet: direction and RDMAP opcode
// (or MPA frame) with the DDP fields that place it (QN/MSN/MO for an
// untagged message, STag/TO for a tagged one), then what it carries.
func (in *Input) iwarpLines(dir string, p verbs.Packet) []string {
	st, m := in.Styles, p.IWARP
	if m.Fault != verbs.IWARPOK {
		return []string{fmt.Sprintf("%s %s", dir, st.Err.R("! "+iwarpFaultWords(m.Fault).In(in.Lang))), "     " + m.FaultDetail}
	}
	last := ""
	if m.Last {
		last = " last"
	}
	switch {
	case m.MPA != verbs.MPANone:
		out := []string{fmt.Sprintf("%s %s rev %d %s", dir, st.Bold.R(m.Name()), m.Rev, st.Dim.R(fmt.Sprintf("(TCP %s → %s)", m.From, m.To)))}
		pd := fmt.Sprintf("     private data %d B", m.PrivateLen)
		if m.Reject {
			pd += " " + st.Err.R(text.Text{EN: "rejected", ZH: "被拒绝"}.In(in.Lang))
		}
		return append(out, pd)
	case m.Read != nil:
		r := m.Read
		return []string{fmt.Sprintf("%s %s QN=%d MSN=%d", dir, st.Bold.R(m.Name()), m.QN, m.MSN),
			fmt.Sprintf("     %s STag=0x%x TO=0x%x len=%d", text.Text{EN: "source", ZH: "源"}.In(in.Lang), r.SrcSTag, r.SrcTO, r.Size),
			fmt.Sprintf("     %s STag=0x%x TO=0x%x", text.Text{EN: "sink", ZH: "目的"}.In(in.Lang), r.SinkSTag, r.SinkTO)}
	case m.Tagged:
		return append([]string{fmt.Sprintf("%s %s STag=0x%x%s", dir, st.Bold.R(m.Name()), m.STag, last),
			fmt.Sprintf("     DDP tagged TO=0x%x", m.TO)}, payloadLine(p)...)
	}
	return append([]string{fmt.Sprintf("%s %s QN=%d MSN=%d MO=%d%s", dir, st.Bold.R(m.Name()), m.QN, m.MSN, m.MO, last)}, payloadLine(p)...)
}

func payloadLine(p verbs.Packet) []string {
	if p.PayloadLen == 0 {
		return nil
	}
	return []string{fmt.Sprintf("     payload %d B", p.PayloadLen)}
}

// iwarpFaultWords says why the capture stopped decoding a direction.
func iwarpFaultWords(f verbs.IWARPFault) text.Text {
	switch f {
	case verbs.IWARPGap:
		return text.Text{EN: "a TCP segment is missing from the capture: the rest of this direction is not decoded",
			ZH: "抓包里缺了一个 TCP 段：这个方向之后的内容不再解码"}
	case verbs.IWARPNotMPA:
		return text.Text{EN: "this TCP stream does not begin with an MPA frame: it is not decoded",
			ZH: "这个 TCP 流不是以 MPA 帧开头的：不解码"}
	case verbs.IWARPTruncated:
		return text.Text{EN: "the capture ended inside a frame", ZH: "抓包在一个帧的中间结束了"}
	}
	return text.Text{EN: "an MPA frame or FPDU does not decode: the rest of this direction is not decoded",
		ZH: "一个 MPA 帧或 FPDU 无法解码：这个方向之后的内容不再解码"}
}
