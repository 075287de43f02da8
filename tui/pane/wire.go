package pane

import (
	"fmt"
	"sort"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// WireTitle is the wire pane's title for side.
func (in *Input) WireTitle(side int) string {
	t := text.Text{EN: "Wire & counters", ZH: "线上报文与计数器"}.Label(in.Lang)
	if in.Demo {
		t = in.roleName(side) + " · " + t
	}
	return t
}

// WireLines: the counters with what the last step changed, then the
// packets the simulated NIC sent and received, decoded (newest last).
func (in *Input) WireLines(side, w int) []string {
	st := in.Styles
	s := in.Snaps[side]
	out := []string{st.Title.R(in.countersTitle(s))}
	if len(s.Counters) == 0 {
		out = append(out, st.Dim.R(text.Text{EN: "  (none available)", ZH: "  （没有可用的计数器）"}.In(in.Lang)))
	} else {
		names := make([]string, 0, len(s.Counters))
		for k := range s.Counters {
			names = append(names, k)
		}
		sort.Strings(names)
		line, lw := " ", 1
		for _, k := range names {
			cell := fmt.Sprintf(" %s=%d", k, s.Counters[k])
			if d := s.CounterDelta[k]; d > 0 {
				cell += st.Warn.R(fmt.Sprintf("(+%d)", d))
			}
			cw := termtext.Width(cell)
			if lw+cw > w && lw > 1 {
				out = append(out, line)
				line, lw = " ", 1
			}
			line += cell
			lw += cw
		}
		out = append(out, line)
	}
	out = append(out, "", st.Title.R(text.Text{EN: "Packets", ZH: "报文"}.Label(in.Lang)))
	if why := in.noPacketsWhy(s); why != "" {
		out = append(out, termtext.Wrap(why, w)...)
	}
	pk := s.Packets
	if len(pk) > 60 {
		pk = pk[len(pk)-60:]
	}
	cause := "\x00" // no packet yet
	for _, p := range pk {
		if p.Step != cause {
			cause = p.Step
			out = append(out, st.Dim.R("▸ "+in.stepName(s, p.Step)))
		}
		out = append(out, in.packetLines(p.Packet)...)
	}
	return out
}

// countersTitle says whose traffic the counters count: this side's QP
// where the device counts per QP, else the port's (in the demo, shared
// by both sides, which run on one device).
func (in *Input) countersTitle(s steps.Snapshot) string {
	switch {
	case s.CountersPerQP:
		return text.Text{EN: "Counters (this side's QP)", ZH: "计数器（本端 QP）"}.Label(in.Lang)
	case in.Demo:
		return text.Text{EN: "Counters (the port's: both sides share it)", ZH: "计数器（端口的：两端共用）"}.Label(in.Lang)
	}
	return text.Text{EN: "Counters (the port's)", ZH: "计数器（端口的）"}.Label(in.Lang)
}

// noPacketsWhy says why the packet list is empty or cannot be, or "".
func (in *Input) noPacketsWhy(s steps.Snapshot) string {
	switch {
	case s.Wire.State == verbs.TraceNoPermission:
		return text.Text{EN: "No capture: " + s.Wire.Detail + ". The counters above still count every packet.", ZH: "无法抓包：需要 CAP_NET_RAW。用 root 运行，或执行一次 sudo setcap cap_net_raw+ep <rdmatour 的路径>。上面的计数器照常统计每个报文。"}.In(in.Lang)
	case s.Wire.State == verbs.TraceUnavailable:
		return text.Text{EN: "No capture on this device (" + s.Wire.Detail + "): a real NIC sends packets in hardware. Watch the counters above.", ZH: "这块设备上没有抓包（" + s.Wire.Detail + "）：真实网卡在硬件里收发报文。请看上面的计数器。"}.In(in.Lang)
	case len(s.Packets) == 0 && s.Wire.OneHost:
		return text.Text{EN: "Both ends are this machine: the device loops the packets back inside the kernel, so none reaches a wire to capture (the counters above still move). Run the two sides on two hosts to see them.", ZH: "两端都在这台机器上：设备在内核里把报文直接环回，一个也到不了线上，所以抓不到（上面的计数器照样会动）。把两端放到两台主机上就能看到。"}.In(in.Lang)
	case len(s.Packets) == 0:
		return in.Styles.Dim.R(text.Text{EN: "no packets yet", ZH: "还没有报文"}.In(in.Lang))
	}
	return ""
}

// stepName names the step a packet came from: this side's step, or the
// peer when none of ours was running.
func (in *Input) stepName(s steps.Snapshot, id string) string {
	if id == "" {
		return text.Text{EN: "while waiting (the peer's doing)", ZH: "等待期间（对端引起的）"}.In(in.Lang)
	}
	for _, ss := range s.Steps {
		if ss.ID == id {
			return text.Text{EN: ss.Title.EN, ZH: ss.Title.ZH}.In(in.Lang)
		}
	}
	return id
}

// packetLines decodes one packet: direction, opcode, then its headers.
func (in *Input) packetLines(p verbs.Packet) []string {
	st := in.Styles
	dir := st.OK.R("→ " + text.Text{EN: "out", ZH: "发"}.In(in.Lang))
	if !p.Outbound {
		dir = st.Key.R("← " + text.Text{EN: "in ", ZH: "收"}.In(in.Lang))
	}
	if p.IWARP != nil {
		return in.iwarpLines(dir, p)
	}
	if p.CM != "" {
		return []string{fmt.Sprintf("%s %s %s", dir, st.Bold.R("CM "+p.CM), st.Dim.R(text.Text{EN: "(MAD to QP1)", ZH: "（发往 QP1 的 MAD）"}.In(in.Lang)))}
	}
	a := ""
	if p.AckReq {
		a = " A"
	}
	out := []string{fmt.Sprintf("%s %s qp=0x%06x psn=%d%s%s", dir, st.Bold.R(verbs.OpcodeName(p.Opcode)), p.DestQP, p.PSN, a, in.faultMark(p))}
	if r := p.RETH; r != nil {
		out = append(out, fmt.Sprintf("     RETH va=0x%x rkey=0x%x len=%d", r.VA, r.RKey, r.DMALen))
	}
	if a := p.AETH; a != nil {
		syn := verbs.SyndromeName(a.Syndrome)
		if a.Syndrome&0xE0 != 0 {
			syn = st.Err.R(syn)
		}
		out = append(out, fmt.Sprintf("     AETH %s msn=%d", syn, a.MSN))
	}
	if p.ImmDt != nil {
		out = append(out, fmt.Sprintf("     ImmDt 0x%08x", *p.ImmDt))
	}
	out = append(out, atomicLines(p)...)
	if p.PayloadLen > 0 {
		out = append(out, fmt.Sprintf("     payload %d B", p.PayloadLen))
	}
	return out
}

// faultMark marks a packet the wire lost or one sent again (its PSN
// went out before): "" for the rest.
func (in *Input) faultMark(p verbs.Packet) string {
	mark := ""
	if p.Retransmit {
		mark += " " + in.Styles.Warn.R(text.Text{EN: "↻ retransmitted", ZH: "↻ 重传"}.In(in.Lang))
	}
	if p.Lost {
		mark += " " + in.Styles.Err.R(text.Text{EN: "✗ lost on the wire", ZH: "✗ 在线上丢了"}.In(in.Lang))
	}
	return mark
}

// atomicLines decodes an atomic's AtomicETH (where, and the operands) and
// an ATOMIC_ACKNOWLEDGE's AtomicAckETH (the value the target held before).
func atomicLines(p verbs.Packet) []string {
	var out []string
	if a := p.AtomicETH; a != nil {
		ops := fmt.Sprintf("add=%d", a.SwapAdd)
		if p.Opcode == verbs.OpCompareSwap {
			ops = fmt.Sprintf("compare=%d swap=%d", a.Compare, a.SwapAdd)
		}
		out = append(out, fmt.Sprintf("     AtomicETH va=0x%x rkey=0x%x %s", a.VA, a.RKey, ops))
	}
	if p.AtomicAck != nil {
		out = append(out, fmt.Sprintf("     AtomicAckETH orig=%d", *p.AtomicAck))
	}
	return out
}
