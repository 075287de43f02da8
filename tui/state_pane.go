package tui

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

func (m *model) stateTitle(side int) string {
	t := title(m.lang, "Live state", "实时状态")
	if m.demo {
		t = m.roleName(side) + " · " + t
	}
	return t
}

func hexs(v uint64) string { return fmt.Sprintf("0x%x", v) }

// stateLines: device, CM id, PD, CQ, QP, MRs, data buffer, doorbell,
// remote_info.
func (m *model) stateLines(side, w int) []string {
	lines, _ := m.stateLinesAnchored(side, w)
	return lines
}

// stateLinesAnchored also returns the line where the section the current
// step is about starts (the pane scrolls there).
func (m *model) stateLinesAnchored(side, w int) ([]string, int) {
	st := m.styles
	s := m.snaps[side]
	L := m.lang
	var out []string
	anchors := map[string]int{}
	var missing []string
	sec := func(en, zh string) {
		if len(out) > 0 {
			out = append(out, "")
		}
		anchors[en] = len(out)
		out = append(out, st.Title.R(title(L, en, zh)))
	}
	absent := func(en, zh string) { missing = append(missing, title(L, en, zh)) }
	kv := func(k, v string) string { return st.Key.R(k) + " " + v }
	add := func(parts ...string) {
		line := "  " + strings.Join(parts, "  ")
		out = append(out, line)
	}

	sec("Device", "设备")
	if s.Simulated {
		out = append(out, "  "+m.backendLabel(s))
	}
	if d := s.Device; d != nil {
		if !s.Simulated {
			add(kv(tr(L, "device", "设备"), d.Info.Name), d.Info.Transport, strings.Join(d.Info.Netdevs, ","))
		}
		p := d.Port
		add(kv(tr(L, "port", "端口"), fmt.Sprint(d.PortNum)), p.State.String(), kv("MTU", fmt.Sprintf("%d/%d", p.ActiveMTU, p.MaxMTU)), p.LinkLayer)
		gid := d.GID
		if gid == "" && len(p.GIDs) > 0 {
			g := p.GIDs[0]
			for _, e := range p.GIDs {
				if e.Index == d.GIDIndex {
					g = e
				}
			}
			gid = fmt.Sprintf("[%d] %s %s", g.Index, g.GID, g.Type)
		}
		if gid != "" {
			add(kv("GID", gid))
		}
	} else {
		out = append(out, st.Dim.R(tr(L, "  (no device yet: the CM id is not bound)", "  （还没有设备：CM id 尚未绑定）")))
	}
	if s.Why != "" {
		for _, l := range wrap(s.Why, w-2) {
			out = append(out, "  "+st.Dim.R(l))
		}
	}

	if c := s.CMID; c != nil {
		sec("CM id", "CM id")
		addr := kv(tr(L, "local", "本地"), c.Local)
		if c.Peer != "" && !strings.HasPrefix(c.Peer, "invalid") {
			addr += " → " + c.Peer
		}
		add(addr)
		stateWord := ""
		switch {
		case c.Connected:
			stateWord = st.OK.R(tr(L, "connected", "已连接"))
		case c.Listening:
			stateWord = tr(L, "listening", "监听中")
		}
		ev := c.LastEvent
		if ev == "" {
			ev = "-"
		}
		if c.EventStatus != 0 {
			ev += fmt.Sprintf(" (status %d)", c.EventStatus)
		}
		add(kv(tr(L, "last event", "最近事件"), ev), stateWord)
	} else {
		absent("CM id", "CM id")
	}

	if s.PD != nil {
		sec("PD", "保护域 PD")
		add(kv("handle", fmt.Sprint(s.PD.Handle)))
	} else {
		absent("PD", "保护域 PD")
	}

	if s.CQ != nil {
		sec("CQ", "完成队列 CQ")
		add(kv("cqe", fmt.Sprint(s.CQ.CQE)), kv(tr(L, "completions", "完成数"), fmt.Sprint(len(s.CQ.Completions))))
		if len(s.CQ.Completions) > 0 {
			out = append(out, st.Dim.R(fmt.Sprintf("  %-20s %-18s %5s %8s %s", "status", "opcode", "wr_id", "byte_len", "imm")))
			for _, wc := range s.CQ.Completions {
				status := fmt.Sprintf("%-20s", wc.Status.String())
				if wc.Status == verbs.WCSuccess {
					status = st.OK.R(status)
				} else {
					status = st.Err.R(status)
				}
				imm := "-"
				if wc.HasImm {
					imm = fmt.Sprintf("0x%x", wc.ImmData)
				}
				// A failed completion defines only wr_id, status and
				// qp_num (ibv_poll_cq(3)); rxe leaves garbage in the rest.
				op, n := strings.TrimPrefix(wc.Opcode.String(), "IBV_WC_"), fmt.Sprint(wc.ByteLen)
				if wc.Status != verbs.WCSuccess {
					op, n = "-", "-"
				}
				out = append(out, fmt.Sprintf("  %s %-18s %5d %8s %s", status, op, wc.WRID, n, imm))
			}
		}
	} else {
		absent("CQ", "完成队列 CQ")
	}

	if q := s.QP; q != nil {
		sec("QP", "队列对 QP")
		a := q.Attr
		head := kv("qp_num", fmt.Sprintf("0x%x", q.Num))
		if q.Num == 0 {
			head = kv("qp", tr(L, "destroyed", "已销毁"))
		}
		if q.Type != "" {
			head += "  " + q.Type
		}
		if a.DestQPNum != 0 {
			head += "  " + kv("dest_qp", fmt.Sprintf("0x%x", a.DestQPNum))
		}
		add(head)
		out = append(out, "  "+m.qpDiagram(a.State, q.History))
		if q.Query != "" {
			out = append(out, "  "+st.Warn.R("ibv_query_qp: "+q.Query))
		}
		if a.Cap != (verbs.QPCap{}) {
			add(kv("cap", fmt.Sprintf("send_wr=%d recv_wr=%d sge=%d/%d inline=%d", a.Cap.MaxSendWR, a.Cap.MaxRecvWR, a.Cap.MaxSendSGE, a.Cap.MaxRecvSGE, a.Cap.MaxInlineData)))
		}
		if a.OutstandingSet {
			add(kv(tr(L, "outstanding", "未完成 WR"), fmt.Sprintf("SQ=%d RQ=%d", a.OutstandingSQ, a.OutstandingRQ)))
		}
		if a.State >= verbs.QPSRTR && a.State != verbs.QPSErr || a.SQPSN != 0 || a.RQPSN != 0 {
			add(kv("sq_psn", fmt.Sprint(a.SQPSN)), kv("rq_psn", fmt.Sprint(a.RQPSN)), kv("path_mtu", fmt.Sprint(a.PathMTU)))
		}
	} else {
		absent("QP", "队列对 QP")
	}

	if len(s.MRs) > 0 {
		sec("Memory regions", "内存区域 MR")
		out = append(out, st.Dim.R(fmt.Sprintf("  %-8s %-14s %5s %-10s %-10s %s", "name", "addr", "len", "lkey", "rkey", "access")))
		for _, r := range s.MRs {
			out = append(out, fmt.Sprintf("  %-8s %-14s %5d %-10s %-10s %s", r.Name, hexs(r.Addr), r.Len, hexs(uint64(r.LKey)), hexs(uint64(r.RKey)), r.Access.Short()))
		}
	} else {
		absent("Memory regions", "内存区域 MR")
	}

	if len(s.Data.Bytes) > 0 {
		sec("Data buffer", "数据 buffer")
		out = append(out, m.hexdump(s.Data, w-2)...)
	}
	if d := s.Doorbell; d != nil {
		sec("Doorbell", "Doorbell 标志位")
		v := fmt.Sprintf("0x%016x (%d)", d.Value, d.Value)
		if !d.ChangedAt.IsZero() && m.now().Sub(d.ChangedAt) < highlightFor {
			v = st.Changed.R(v)
			if st.NoColor {
				v += " *"
			}
		}
		add(kv("*doorbell =", v))
	}
	if r := s.Remote; r != nil {
		if s.Role == steps.Server {
			sec("remote_info (sent in the accept private data)", "remote_info（随 accept 的 private data 发出）")
			anchors["remote_info (from the server's private data)"] = anchors["remote_info (sent in the accept private data)"]
		} else {
			sec("remote_info (from the server's private data)", "remote_info（来自 server 的 private data）")
		}
		i := r.Info
		add(kv("addr", hexs(i.Addr)), kv("rkey", hexs(uint64(i.RKey))), kv("size", fmt.Sprint(i.Size)))
		add(kv("doorbell_addr", hexs(i.DoorbellAddr)), kv("rkey", hexs(uint64(i.DoorbellRKey))), kv("size", fmt.Sprint(i.DoorbellSize)))
		n := min(len(r.Raw), steps.RemoteInfoSize)
		out = append(out, "  "+st.Dim.R(fmt.Sprintf(tr(L, "raw private data (%d B, big-endian):", "private data 原始字节（%d B，大端）："), len(r.Raw))))
		for off := 0; off < n; off += 8 {
			var b strings.Builder
			for j := off; j < min(off+8, n); j++ {
				fmt.Fprintf(&b, "%02x ", r.Raw[j])
			}
			label := []string{"addr", "rkey size", "db_addr", "db_rkey db_size"}[off/8]
			out = append(out, fmt.Sprintf("  %02x  %-24s %s", off, b.String(), st.Dim.R(label)))
		}
		if rest := len(r.Raw) - n; rest > 0 {
			out = append(out, "  "+st.Dim.R(fmt.Sprintf(tr(L, "+ %d more bytes (padding)", "+ %d 字节（填充）"), rest)))
		}
	}
	if len(missing) > 0 {
		out = append(out, "")
		for _, l := range wrap(tr(L, "not created yet: ", "尚未创建：")+strings.Join(missing, ", "), w) {
			out = append(out, st.Dim.R(l))
		}
	}
	anchor := -1
	if a, ok := anchors[m.stateSection(side)]; ok {
		anchor = a
	}
	return out, anchor
}

// stateSection is the state section the current step is about.
func (m *model) stateSection(side int) string {
	s := m.snaps[side]
	now := m.now()
	for _, t := range s.Data.ChangedAt {
		if !t.IsZero() && now.Sub(t) < highlightFor {
			return "Data buffer"
		}
	}
	cs, ci := m.curStep()
	if cs != side {
		// The demo's other side: its own next step.
		ci = s.Next
	}
	if ci < 0 || ci >= len(s.Steps) {
		return ""
	}
	id := s.Steps[ci].ID
	switch {
	case id == "alloc-pd":
		return "PD"
	case id == "create-cq", strings.HasPrefix(id, "poll-"):
		return "CQ"
	case id == "create-qp", id == "disconnect", id == "post-recv":
		return "QP"
	case strings.HasPrefix(id, "reg-mr"):
		return "Memory regions"
	case id == "accept", id == "get-established":
		return "QP"
	case id == "wait-notify", strings.HasPrefix(id, "post-write"):
		return "Data buffer"
	case id == "post-doorbell":
		return "Doorbell"
	case id == "post-send":
		return "QP"
	}
	return ""
}
