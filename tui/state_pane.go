package tui

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

// The live-state pane: one section per steps.Section, each drawn by its
// renderer from the table below, in the order steps.Sections gives. Each
// step names the section it changes, and the pane scrolls there.

// stateSection draws one section of the live state.
type stateSection struct {
	title steps.Text
	// clientTitle replaces title on the client, where it differs.
	clientTitle steps.Text
	// draw returns the section's lines; present is false while the
	// resource does not exist.
	draw func(m *model, s steps.Snapshot, w int) (lines []string, present bool)
	// listAbsent names the section under "not created yet" while absent.
	listAbsent bool
}

// stateSections is the table of renderers.
var stateSections = map[steps.Section]stateSection{
	steps.SectionDevice:   {title: steps.Text{EN: "Device", ZH: "设备"}, draw: (*model).deviceLines},
	steps.SectionCMID:     {title: steps.Text{EN: "CM id", ZH: "CM id"}, draw: (*model).cmidLines, listAbsent: true},
	steps.SectionPD:       {title: steps.Text{EN: "PD", ZH: "保护域 PD"}, draw: (*model).pdLines, listAbsent: true},
	steps.SectionCQ:       {title: steps.Text{EN: "CQ", ZH: "完成队列 CQ"}, draw: (*model).cqLines, listAbsent: true},
	steps.SectionQP:       {title: steps.Text{EN: "QP", ZH: "队列对 QP"}, draw: (*model).qpLines, listAbsent: true},
	steps.SectionMRs:      {title: steps.Text{EN: "Memory regions", ZH: "内存区域 MR"}, draw: (*model).mrLines, listAbsent: true},
	steps.SectionData:     {title: steps.Text{EN: "Data buffer", ZH: "数据 buffer"}, draw: (*model).dataLines},
	steps.SectionDoorbell: {title: steps.Text{EN: "Doorbell", ZH: "Doorbell 标志位"}, draw: (*model).doorbellLines},
	steps.SectionRemote: {
		title:       steps.Text{EN: "remote_info (sent in the accept private data)", ZH: "remote_info（随 accept 的 private data 发出）"},
		clientTitle: steps.Text{EN: "remote_info (from the server's private data)", ZH: "remote_info（来自 server 的 private data）"},
		draw:        (*model).remoteLines},
}

func (m *model) stateTitle(side int) string {
	t := title(m.lang, "Live state", "实时状态")
	if m.demo {
		t = m.roleName(side) + " · " + t
	}
	return t
}

func hexs(v uint64) string { return fmt.Sprintf("0x%x", v) }

// kv is a field name and its value.
func (m *model) kv(k, v string) string { return m.styles.Key.R(k) + " " + v }

// fields is one indented line of fields.
func fields(parts ...string) string { return "  " + strings.Join(parts, "  ") }

// stateLines: every section of side's live state.
func (m *model) stateLines(side, w int) []string {
	lines, _ := m.stateLinesAnchored(side, w)
	return lines
}

// stateLinesAnchored also returns the line where the section the current
// step changes starts (the pane scrolls there), or -1.
func (m *model) stateLinesAnchored(side, w int) ([]string, int) {
	s := m.snaps[side]
	want := m.stateSection(side)
	var out, absent []string
	anchor := -1
	for _, sec := range steps.Sections() {
		r := stateSections[sec]
		t := r.title
		if s.Role == steps.Client && r.clientTitle.EN != "" {
			t = r.clientTitle
		}
		name := title(m.lang, t.EN, t.ZH)
		lines, present := r.draw(m, s, w)
		if !present {
			if r.listAbsent {
				absent = append(absent, name)
			}
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		if sec == want {
			anchor = len(out)
		}
		out = append(out, m.styles.Title.R(name))
		out = append(out, lines...)
	}
	if len(absent) > 0 {
		out = append(out, "")
		for _, l := range wrap(tr(m.lang, "not created yet: ", "尚未创建：")+strings.Join(absent, ", "), w) {
			out = append(out, m.styles.Dim.R(l))
		}
	}
	return out, anchor
}

// stateSection is the section the current step changes: the data buffer
// while bytes in it changed since the learner's last step (the peer's WRITE lands with no
// step on this side), otherwise what the step declares.
func (m *model) stateSection(side int) steps.Section {
	s := m.snaps[side]
	for _, t := range s.Data.ChangedAt {
		if m.fresh(t) {
			return steps.SectionData
		}
	}
	cs, ci := m.curStep()
	if cs != side {
		// The demo's other side: its own next step.
		ci = s.Next
	}
	tour := m.tourOf(side)
	if ci < 0 || ci >= len(tour) {
		return steps.SectionNone
	}
	return tour[ci].Section
}

func (m *model) deviceLines(s steps.Snapshot, w int) ([]string, bool) {
	st, L := m.styles, m.lang
	var out []string
	if s.Simulated {
		out = append(out, "  "+m.backendLabel(s))
	}
	if d := s.Device; d != nil {
		if !s.Simulated {
			out = append(out, fields(m.kv(tr(L, "device", "设备"), d.Info.Name), d.Info.Transport, strings.Join(d.Info.Netdevs, ",")))
		}
		p := d.Port
		out = append(out, fields(m.kv(tr(L, "port", "端口"), fmt.Sprint(d.PortNum)), p.State.String(), m.kv("MTU", fmt.Sprintf("%d/%d", p.ActiveMTU, p.MaxMTU)), p.LinkLayer))
		if gid := gidLabel(d); gid != "" {
			out = append(out, fields(m.kv("GID", gid)))
		}
	} else {
		out = append(out, st.Dim.R(tr(L, "  (no device yet: the CM id is not bound)", "  （还没有设备：CM id 尚未绑定）")))
	}
	if s.Why != "" {
		for _, l := range wrap(m.backendWhy(s.Why), w-2) {
			out = append(out, "  "+st.Dim.R(l))
		}
	}
	return out, true
}

// gidLabel is the GID the CM id uses, or the port's first.
func gidLabel(d *steps.DeviceState) string {
	if d.GID != "" || len(d.Port.GIDs) == 0 {
		return d.GID
	}
	g := d.Port.GIDs[0]
	for _, e := range d.Port.GIDs {
		if e.Index == d.GIDIndex {
			g = e
		}
	}
	return fmt.Sprintf("[%d] %s %s", g.Index, g.GID, g.Type)
}

func (m *model) cmidLines(s steps.Snapshot, _ int) ([]string, bool) {
	c := s.CMID
	if c == nil {
		return nil, false
	}
	st, L := m.styles, m.lang
	addr := m.kv(tr(L, "local", "本地"), c.Local)
	if c.Peer != "" && !strings.HasPrefix(c.Peer, "invalid") {
		addr += " → " + c.Peer
	}
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
		ev += fmt.Sprintf(tr(L, " (status %d)", "（status %d）"), c.EventStatus)
	}
	return []string{fields(addr), fields(m.kv(tr(L, "last event", "最近事件"), ev), stateWord)}, true
}

func (m *model) pdLines(s steps.Snapshot, _ int) ([]string, bool) {
	if s.PD == nil {
		return nil, false
	}
	return []string{fields(m.kv("handle", fmt.Sprint(s.PD.Handle)))}, true
}

func (m *model) cqLines(s steps.Snapshot, w int) ([]string, bool) {
	if s.CQ == nil {
		return nil, false
	}
	st := m.styles
	out := []string{fields(m.kv("cqe", fmt.Sprint(s.CQ.CQE)), m.kv(tr(m.lang, "completions", "完成数"), fmt.Sprint(len(s.CQ.Completions))))}
	var rows [][]string
	for _, wc := range s.CQ.Completions {
		status := wc.Status.String()
		if wc.Status == verbs.WCSuccess {
			status = st.OK.R(status)
		} else {
			status = st.Err.R(status)
		}
		imm := "-"
		if wc.HasImm {
			imm = fmt.Sprintf("0x%x", wc.ImmData)
		}
		// A failed completion defines only wr_id, status and qp_num
		// (ibv_poll_cq(3)); rxe leaves garbage in the rest.
		op, n := strings.TrimPrefix(wc.Opcode.String(), "IBV_WC_"), fmt.Sprint(wc.ByteLen)
		if wc.Status != verbs.WCSuccess {
			op, n = "-", "-"
		}
		rows = append(rows, []string{status, op, fmt.Sprint(wc.WRID), n, imm})
	}
	if len(rows) > 0 {
		out = append(out, m.table([]string{"status", "opcode", "wr_id", "byte_len", "imm"}, rows, w)...)
	}
	return out, true
}

func (m *model) qpLines(s steps.Snapshot, w int) ([]string, bool) {
	q := s.QP
	if q == nil {
		return nil, false
	}
	L, a := m.lang, q.Attr
	head := m.kv("qp_num", fmt.Sprintf("0x%x", q.Num))
	if q.Num == 0 {
		head = m.kv("qp", tr(L, "destroyed", "已销毁"))
	}
	if q.Type != "" {
		head += "  " + q.Type
	}
	if a.DestQPNum != 0 {
		head += "  " + m.kv("dest_qp", fmt.Sprintf("0x%x", a.DestQPNum))
	}
	out := []string{fields(head), "  " + m.qpDiagram(a.State, q.History)}
	if q.Query != "" {
		out = append(out, "  "+m.styles.Warn.R("ibv_query_qp: "+q.Query))
	}
	if a.Cap != (verbs.QPCap{}) {
		out = append(out, fields(m.kv("cap", fmt.Sprintf("send_wr=%d recv_wr=%d sge=%d/%d inline=%d", a.Cap.MaxSendWR, a.Cap.MaxRecvWR, a.Cap.MaxSendSGE, a.Cap.MaxRecvSGE, a.Cap.MaxInlineData))))
	}
	if a.OutstandingSet {
		out = append(out, fields(m.kv(tr(L, "outstanding", "未完成 WR"), fmt.Sprintf("SQ=%d RQ=%d", a.OutstandingSQ, a.OutstandingRQ))))
	}
	switch {
	case s.UD != nil:
		// A UD QP has a send PSN of its own and nothing a peer agreed
		// to: rq_psn and path_mtu are left out (udLines says why).
		if a.State == verbs.QPSRTS || a.SQPSN != 0 {
			out = append(out, fields(m.kv("sq_psn", fmt.Sprint(a.SQPSN))))
		}
	case a.State >= verbs.QPSRTR && a.State != verbs.QPSErr || a.SQPSN != 0 || a.RQPSN != 0:
		out = append(out, fields(m.kv("sq_psn", fmt.Sprint(a.SQPSN)), m.kv("rq_psn", fmt.Sprint(a.RQPSN)), m.kv("path_mtu", fmt.Sprint(a.PathMTU))))
	}
	return append(out, m.udLines(s, w)...), true
}

func (m *model) mrLines(s steps.Snapshot, w int) ([]string, bool) {
	if len(s.MRs) == 0 {
		return nil, false
	}
	var rows [][]string
	for _, r := range s.MRs {
		rows = append(rows, []string{r.Name, hexs(r.Addr), fmt.Sprint(r.Len), hexs(uint64(r.LKey)), hexs(uint64(r.RKey)), r.Access.Short()})
	}
	return m.table([]string{"name", "addr", "len", "lkey", "rkey", "access"}, rows, w), true
}

func (m *model) dataLines(s steps.Snapshot, w int) ([]string, bool) {
	if len(s.Data.Bytes) == 0 {
		return nil, false
	}
	return m.hexdump(s.Data, w), true
}

func (m *model) doorbellLines(s steps.Snapshot, _ int) ([]string, bool) {
	d := s.Doorbell
	if d == nil {
		return nil, false
	}
	st := m.styles
	v := fmt.Sprintf("0x%016x (%d)", d.Value, d.Value)
	if m.fresh(d.ChangedAt) {
		v = st.Changed.R(v)
		if st.NoColor {
			v += " *"
		}
	}
	return []string{fields(m.kv("*doorbell =", v))}, true
}

// remoteLines: remote_info decoded, then the private data as it
// travelled, in hex (the peer's bytes are never shown as text here).
func (m *model) remoteLines(s steps.Snapshot, _ int) ([]string, bool) {
	r := s.Remote
	if r == nil {
		return nil, false
	}
	st, i := m.styles, r.Info
	out := []string{
		fields(m.kv("addr", hexs(i.Addr)), m.kv("rkey", hexs(uint64(i.RKey))), m.kv("size", fmt.Sprint(i.Size))),
		fields(m.kv("doorbell_addr", hexs(i.DoorbellAddr)), m.kv("rkey", hexs(uint64(i.DoorbellRKey))), m.kv("size", fmt.Sprint(i.DoorbellSize))),
	}
	n := min(len(r.Raw), privdata.RemoteInfoSize)
	out = append(out, "  "+st.Dim.R(fmt.Sprintf(tr(m.lang, "raw private data (%d B, big-endian):", "private data 原始字节（%d B，大端）："), len(r.Raw))))
	for off := 0; off < n; off += 8 {
		var b strings.Builder
		for j := off; j < min(off+8, n); j++ {
			fmt.Fprintf(&b, "%02x ", r.Raw[j])
		}
		label := []string{"addr", "rkey size", "db_addr", "db_rkey db_size"}[off/8]
		out = append(out, fmt.Sprintf("  %02x  %-24s %s", off, b.String(), st.Dim.R(label)))
	}
	if rest := len(r.Raw) - n; rest > 0 {
		out = append(out, "  "+st.Dim.R(fmt.Sprintf(tr(m.lang, "+ %d more bytes (padding)", "+ %d 字节（填充）"), rest)))
	}
	return out, true
}
