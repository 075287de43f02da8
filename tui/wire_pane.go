package tui

import (
	"fmt"
	"sort"

	"github.com/rdmatour/rdmatour/verbs"
)

func (m *model) wireTitle(side int) string {
	t := title(m.lang, "Wire & counters", "线上报文与计数器")
	if m.demo {
		t = m.roleName(side) + " · " + t
	}
	return t
}

// wireLines: the counters with what the last step changed, then the
// packets the simulated NIC sent and received, decoded (newest last).
func (m *model) wireLines(side, w int) []string {
	st := m.styles
	s := m.snaps[side]
	out := []string{st.Title.R(title(m.lang, "Counters", "计数器"))}
	if len(s.Counters) == 0 {
		out = append(out, st.Dim.R(tr(m.lang, "  (none available)", "  （没有可用的计数器）")))
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
			cw := width(cell)
			if lw+cw > w && lw > 1 {
				out = append(out, line)
				line, lw = " ", 1
			}
			line += cell
			lw += cw
		}
		out = append(out, line)
	}
	out = append(out, "", st.Title.R(title(m.lang, "Packets", "报文")))
	if !s.Simulated {
		return append(out, wrap(tr(m.lang, "Packets are shown on the simulated NIC only; a real NIC sends them in hardware. Watch the counters above.",
			"只有模拟网卡能显示报文；真实网卡在硬件里收发。请看上面的计数器。"), w)...)
	}
	if len(s.Packets) == 0 {
		out = append(out, st.Dim.R(tr(m.lang, "no packets yet", "还没有报文")))
	}
	pk := s.Packets
	if len(pk) > 60 {
		pk = pk[len(pk)-60:]
	}
	for _, p := range pk {
		dir := st.OK.R("→ " + tr(m.lang, "out", "发"))
		if !p.Outbound {
			dir = st.Key.R("← " + tr(m.lang, "in ", "收"))
		}
		a := ""
		if p.AckReq {
			a = " A"
		}
		out = append(out, fmt.Sprintf("%s %s qp=0x%06x psn=%d%s", dir, st.Bold.R(verbs.OpcodeName(p.Opcode)), p.DestQP, p.PSN, a))
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
		if p.PayloadLen > 0 {
			out = append(out, fmt.Sprintf("     payload %d B", p.PayloadLen))
		}
	}
	return out
}
