package pane

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// udLines is what the ud tour adds to the QP section: the Q_Key, that
// the QP has no connection (RTS is all there is: no dest_qp, no PSN agreed
// with anyone), and — on the client — where every SEND goes: the server
// QP's number and Q_Key from the SIDR reply and the address handle made
// from its address vector. The server has no destination: it only
// receives until a datagram's GRH and src_qp say where to answer.
func (in *Input) udLines(s steps.Snapshot, w int) []string {
	u := s.UD
	if u == nil || s.QP == nil {
		return nil
	}
	st, L := in.Styles, in.Lang
	var out []string
	if q := s.QP.Attr.QKey; q != 0 {
		out = append(out, fields(in.kv("qkey", fmt.Sprintf("0x%08x", q))))
	}
	dim := func(t text.Text) {
		for _, l := range termtext.Wrap(t.In(L), w-2) {
			out = append(out, "  "+st.Dim.R(l))
		}
	}
	dim(text.Text{EN: "UD: no connection on this QP. RTS is its last state; there is no dest_qp and no PSN agreed with a peer.", ZH: "UD：这个 QP 上没有连接。RTS 就是它的最后一个状态；没有 dest_qp，也没有和对端商定的 PSN。"})
	switch {
	case s.Role == steps.Server && !u.HasDest:
		dim(text.Text{EN: "No destination yet: the SIDR request named none. A received datagram's GRH and src_qp will say where to answer.", ZH: "还没有目的地：SIDR 请求里没有。收到的数据报的 GRH 和 src_qp 会说明该回答到哪里。"})
		return out
	case !u.HasDest:
		dim(text.Text{EN: "Destination: not known yet (the SIDR reply brings it).", ZH: "目的地：还不知道（SIDR 应答会带来）。"})
		return out
	}
	// Indented under their heading: the fields of every SEND's wr.ud.
	sub := func(parts ...string) string { return "  " + fields(parts...) }
	heading := text.Text{EN: "each SEND goes to (wr.ud):", ZH: "每个 SEND 发往（wr.ud）："}.In(L)
	if s.Role == steps.Server {
		heading = text.Text{EN: "the answer goes to (wr.ud, from the datagram):", ZH: "回答发往（wr.ud，取自数据报）："}.In(L)
	}
	out = append(out, fields(heading),
		sub(in.kv("remote_qpn", fmt.Sprintf("0x%x", u.RemoteQPN)), in.kv("remote_qkey", fmt.Sprintf("0x%08x", u.RemoteQKey))))
	a := u.AH
	if a == nil {
		return append(out, sub(in.kv("ah", text.Text{EN: "none (ibv_create_ah not called, or destroyed)", ZH: "无（还没调用 ibv_create_ah，或已销毁）"}.In(L))))
	}
	dgid := "::"
	if a.DGID.IsValid() {
		dgid = a.DGID.String()
	}
	return append(out, sub(in.kv("ah", text.Text{EN: "address handle", ZH: "地址句柄"}.In(L)), in.kv("dgid", dgid)),
		sub(in.kv("sgid_index", fmt.Sprint(a.SGIDIndex)), in.kv("hop_limit", fmt.Sprint(a.HopLimit)),
			in.kv("flow_label", fmt.Sprint(a.FlowLabel)), in.kv("port_num", fmt.Sprint(a.PortNum))))
}
