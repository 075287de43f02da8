package pane

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The live-state pane: one section per steps.Section, each drawn by its
// renderer from the table below, in the order steps.Sections gives. Each
// step names the section it changes, and the pane scrolls there.

// stateSection draws one section of the live state.
type stateSection struct {
	title text.Text
	// clientTitle replaces title on the client, where it differs.
	clientTitle text.Text
	// draw returns the section's lines; present is false while the
	// resource does not exist.
	draw func(in *Input, s steps.Snapshot, w int) (lines []string, present bool)
	// listAbsent names the section under "not created yet" while absent.
	listAbsent bool
}

// stateSections is the table of renderers.
var stateSections = map[steps.Section]stateSection{
	steps.SectionDevice:   {title: text.Text{EN: "Device", ZH: "设备"}, draw: (*Input).deviceLines},
	steps.SectionCMID:     {title: text.Text{EN: "CM id", ZH: "CM id"}, draw: (*Input).cmidLines, listAbsent: true},
	steps.SectionPD:       {title: text.Text{EN: "PD", ZH: "保护域 PD"}, draw: (*Input).pdLines, listAbsent: true},
	steps.SectionCQ:       {title: text.Text{EN: "CQ", ZH: "完成队列 CQ"}, draw: (*Input).cqLines, listAbsent: true},
	steps.SectionQP:       {title: text.Text{EN: "QP", ZH: "队列对 QP"}, draw: (*Input).qpLines, listAbsent: true},
	steps.SectionMRs:      {title: text.Text{EN: "Memory regions", ZH: "内存区域 MR"}, draw: (*Input).mrLines, listAbsent: true},
	steps.SectionData:     {title: text.Text{EN: "Data buffer", ZH: "数据 buffer"}, draw: (*Input).dataLines},
	steps.SectionDoorbell: {title: text.Text{EN: "Doorbell", ZH: "Doorbell 标志位"}, draw: (*Input).doorbellLines},
	steps.SectionRemote: {
		title:       text.Text{EN: "remote_info (sent in the accept private data)", ZH: "remote_info（随 accept 的 private data 发出）"},
		clientTitle: text.Text{EN: "remote_info (from the server's private data)", ZH: "remote_info（来自 server 的 private data）"},
		draw:        (*Input).remoteLines},
}

// SectionTitle is the title of section sec of the live state on role's
// side.
func SectionTitle(sec steps.Section, role steps.Role) text.Text {
	r := stateSections[sec]
	if role == steps.Client && r.clientTitle.EN != "" {
		return r.clientTitle
	}
	return r.title
}

func (in *Input) stateTitle(side int) string {
	t := text.Text{EN: "Live state", ZH: "实时状态"}.Label(in.Lang)
	if in.Demo {
		t = in.roleName(side) + " · " + t
	}
	return t
}

func hexs(v uint64) string { return fmt.Sprintf("0x%x", v) }

// kv is a field name and its value.
func (in *Input) kv(k, v string) string { return in.Styles.Key.R(k) + " " + v }

// fields is one indented line of fields.
func fields(parts ...string) string { return "  " + strings.Join(parts, "  ") }

// StateLines is every section of side's live state, and the line where
// the section the current step changes starts (the pane scrolls there),
// or -1.
func (in *Input) StateLines(side, w int) ([]string, int) {
	s := in.Snaps[side]
	want := in.stateSection(side)
	var out, absent []string
	anchor := -1
	for _, sec := range steps.Sections() {
		r := stateSections[sec]
		t := r.title
		if s.Role == steps.Client && r.clientTitle.EN != "" {
			t = r.clientTitle
		}
		name := t.Label(in.Lang)
		lines, present := r.draw(in, s, w)
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
		out = append(out, in.Styles.Title.R(name))
		out = append(out, lines...)
	}
	if len(absent) > 0 {
		out = append(out, "")
		label := text.Text{EN: "not created yet: ", ZH: "尚未创建："}
		if s.Released {
			label = text.Text{EN: "released: ", ZH: "已释放："}
		}
		for _, l := range termtext.Wrap(label.In(in.Lang)+strings.Join(absent, ", "), w) {
			out = append(out, in.Styles.Dim.R(l))
		}
	}
	return out, anchor
}

// stateSection is the section the current step changes: the data buffer
// while bytes in it changed since the learner's last step (the peer's WRITE lands with no
// step on this side), otherwise what the step declares.
func (in *Input) stateSection(side int) steps.Section {
	s := in.Snaps[side]
	for _, r := range s.Data.Changes {
		if in.fresh(r.At) {
			return steps.SectionData
		}
	}
	cs, ci := in.curStep()
	if cs != side {
		// The demo's other side: its own next step.
		ci = s.Next
	}
	tour := in.tourOf(side)
	if ci < 0 || ci >= len(tour) {
		return steps.SectionNone
	}
	return tour[ci].Section
}

func (in *Input) deviceLines(s steps.Snapshot, w int) ([]string, bool) {
	st, L := in.Styles, in.Lang
	var out []string
	if s.Simulated {
		out = append(out, "  "+in.BackendLabel(s))
	}
	if d := s.Device; d != nil {
		if !s.Simulated {
			out = append(out, fields(in.kv(text.Text{EN: "device", ZH: "设备"}.In(L), d.Info.Name), d.Info.Transport, strings.Join(d.Info.Netdevs, ",")))
		}
		p := d.Port
		out = append(out, fields(in.kv(text.Text{EN: "port", ZH: "端口"}.In(L), fmt.Sprint(d.PortNum)), p.State.String(), in.kv("MTU", fmt.Sprintf("%d/%d", p.ActiveMTU, p.MaxMTU)), p.LinkLayer))
		if gid := gidLabel(d); gid != "" {
			out = append(out, fields(in.kv("GID", gid)))
		}
	} else if s.Released {
		out = append(out, st.Dim.R(text.Text{EN: "  (released: the CM id that held the device is destroyed)", ZH: "  （已释放：持有设备的 CM id 已销毁）"}.In(L)))
	} else {
		out = append(out, st.Dim.R(text.Text{EN: "  (no device yet: the CM id is not bound)", ZH: "  （还没有设备：CM id 尚未绑定）"}.In(L)))
	}
	if s.Why.EN != "" {
		for _, l := range termtext.Wrap(s.Why.In(in.Lang), w-2) {
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

func (in *Input) cmidLines(s steps.Snapshot, _ int) ([]string, bool) {
	c := withUnboundDash(s.CMID)
	if c == nil {
		return nil, false
	}
	st, L := in.Styles, in.Lang
	addr := in.kv(text.Text{EN: "local", ZH: "本地"}.In(L), c.Local)
	if c.Peer != "" && !strings.HasPrefix(c.Peer, "invalid") {
		addr += " → " + c.Peer
	}
	stateWord := ""
	switch {
	case c.Connected:
		stateWord = st.OK.R(text.Text{EN: "connected", ZH: "已连接"}.In(L))
	case c.Listening:
		stateWord = text.Text{EN: "listening", ZH: "监听中"}.In(L)
	}
	ev := c.LastEvent
	if ev == "" {
		ev = "-"
	}
	if c.EventStatus != 0 {
		ev += fmt.Sprintf(text.Text{EN: " (status %d)", ZH: "（status %d）"}.In(L), c.EventStatus)
	}
	return []string{fields(addr), fields(in.kv(text.Text{EN: "last event", ZH: "最近事件"}.In(L), ev), stateWord)}, true
}

// withUnboundDash is c with a local address the id does not have yet
// shown as "-", as a missing last event is: a fresh id is bound to
// nothing, and netip.AddrPort's zero value prints "invalid AddrPort".
func withUnboundDash(c *steps.CMIDState) *steps.CMIDState {
	if c == nil || (c.Local != "" && !strings.HasPrefix(c.Local, "invalid")) {
		return c
	}
	shown := *c
	shown.Local = "-"
	return &shown
}

func (in *Input) pdLines(s steps.Snapshot, _ int) ([]string, bool) {
	if s.PD == nil {
		return nil, false
	}
	return []string{fields(in.kv("handle", fmt.Sprint(s.PD.Handle)))}, true
}

func (in *Input) cqLines(s steps.Snapshot, w int) ([]string, bool) {
	if s.CQ == nil {
		return nil, false
	}
	st := in.Styles
	size := in.kv("cqe", fmt.Sprint(s.CQ.CQE))
	if s.Released {
		// Only the completions it delivered are left to show.
		size = st.Dim.R(text.Text{EN: "released", ZH: "已释放"}.In(in.Lang))
	}
	out := []string{fields(size, in.kv(text.Text{EN: "completions", ZH: "完成数"}.In(in.Lang), fmt.Sprint(len(s.CQ.Completions))))}
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
		out = append(out, in.table([]string{"status", "opcode", "wr_id", "byte_len", "imm"}, rows, w)...)
	}
	return out, true
}

func (in *Input) qpLines(s steps.Snapshot, w int) ([]string, bool) {
	q := s.QP
	if q == nil {
		return nil, false
	}
	L, a := in.Lang, q.Attr
	head := in.kv("qp_num", fmt.Sprintf("0x%x", q.Num))
	if q.Num == 0 {
		head = in.kv("qp", text.Text{EN: "destroyed", ZH: "已销毁"}.In(L))
	}
	if q.Type != "" {
		head += "  " + q.Type
	}
	if a.DestQPNum != 0 {
		head += "  " + in.kv("dest_qp", fmt.Sprintf("0x%x", a.DestQPNum))
	}
	out := []string{fields(head), "  " + in.qpDiagram(a.State, q.History)}
	if path := qpPath(q.History); path != "" {
		out = append(out, fields(in.kv(text.Text{EN: "path", ZH: "经过"}.In(L), path)))
	}
	if q.Query != "" {
		out = append(out, "  "+in.Styles.Warn.R("ibv_query_qp: "+q.Query))
	}
	if a.Cap != (verbs.QPCap{}) {
		out = append(out, fields(in.kv("cap", fmt.Sprintf("send_wr=%d recv_wr=%d sge=%d/%d inline=%d", a.Cap.MaxSendWR, a.Cap.MaxRecvWR, a.Cap.MaxSendSGE, a.Cap.MaxRecvSGE, a.Cap.MaxInlineData))))
	}
	if a.OutstandingSet {
		out = append(out, fields(in.kv(text.Text{EN: "outstanding", ZH: "未完成 WR"}.In(L), fmt.Sprintf("SQ=%d RQ=%d", a.OutstandingSQ, a.OutstandingRQ))))
	}
	switch {
	case s.UD != nil:
		// A UD QP has a send PSN of its own and nothing a peer agreed
		// to: rq_psn and path_mtu are left out (udLines says why).
		if a.State == verbs.QPSRTS || a.SQPSN != 0 {
			out = append(out, fields(in.kv("sq_psn", fmt.Sprint(a.SQPSN))))
		}
	case a.State >= verbs.QPSRTR && a.State != verbs.QPSErr || a.SQPSN != 0 || a.RQPSN != 0:
		out = append(out, fields(in.kv("sq_psn", fmt.Sprint(a.SQPSN)), in.kv("rq_psn", fmt.Sprint(a.RQPSN)), in.kv("path_mtu", fmt.Sprint(a.PathMTU))))
	}
	return append(out, in.udLines(s, w)...), true
}

func (in *Input) mrLines(s steps.Snapshot, w int) ([]string, bool) {
	if len(s.MRs) == 0 {
		return nil, false
	}
	var rows [][]string
	for _, r := range s.MRs {
		rows = append(rows, []string{r.Name, hexs(r.Addr), fmt.Sprint(r.Len), hexs(uint64(r.LKey)), hexs(uint64(r.RKey)), r.Access.Short()})
	}
	return in.table([]string{"name", "addr", "len", "lkey", "rkey", "access"}, rows, w), true
}

func (in *Input) dataLines(s steps.Snapshot, w int) ([]string, bool) {
	if len(s.Data.Bytes) == 0 {
		return nil, false
	}
	return in.Hexdump(s.Data, w), true
}

func (in *Input) doorbellLines(s steps.Snapshot, _ int) ([]string, bool) {
	d := s.Doorbell
	if d == nil {
		return nil, false
	}
	st := in.Styles
	v := fmt.Sprintf("0x%016x (%d)", d.Value, d.Value)
	if in.fresh(d.ChangedAt) {
		v = st.Changed.R(v)
		if st.NoColor {
			v += " *"
		}
	}
	return []string{fields(in.kv("*doorbell =", v))}, true
}

// remoteLines: remote_info decoded, then the private data as it
// travelled, in hex (the peer's bytes are never shown as text here).
func (in *Input) remoteLines(s steps.Snapshot, _ int) ([]string, bool) {
	r := s.Remote
	if r == nil {
		return nil, false
	}
	st, i := in.Styles, r.Info
	out := []string{
		fields(in.kv("addr", hexs(i.Addr)), in.kv("rkey", hexs(uint64(i.RKey))), in.kv("size", fmt.Sprint(i.Size))),
		fields(in.kv("doorbell_addr", hexs(i.DoorbellAddr)), in.kv("rkey", hexs(uint64(i.DoorbellRKey))), in.kv("size", fmt.Sprint(i.DoorbellSize))),
	}
	n := min(len(r.Raw), privdata.RemoteInfoSize)
	out = append(out, "  "+st.Dim.R(fmt.Sprintf(text.Text{EN: "raw private data (%d B, big-endian):", ZH: "private data 原始字节（%d B，大端）："}.In(in.Lang), len(r.Raw))))
	for off := 0; off < n; off += 8 {
		var b strings.Builder
		for j := off; j < min(off+8, n); j++ {
			fmt.Fprintf(&b, "%02x ", r.Raw[j])
		}
		label := []string{"addr", "rkey size", "db_addr", "db_rkey db_size"}[off/8]
		out = append(out, fmt.Sprintf("  %02x  %-24s %s", off, b.String(), st.Dim.R(label)))
	}
	if rest := len(r.Raw) - n; rest > 0 {
		out = append(out, "  "+st.Dim.R(fmt.Sprintf(text.Text{EN: "+ %d more bytes (padding)", ZH: "+ %d 字节（填充）"}.In(in.Lang), rest)))
	}
	return out, true
}

// BackendLabel names the backend of s: the device, and whether it is the
// simulated NIC (then on a warning background).
func (in *Input) BackendLabel(s steps.Snapshot) string {
	dev := ""
	if s.Device != nil {
		dev = s.Device.Info.Name
	}
	if s.Simulated {
		if dev == "" {
			dev = "sim0"
		}
		return in.Styles.Sim.R(" " + text.Text{EN: "SIMULATED NIC (" + dev + ") — not real RDMA", ZH: "模拟网卡（" + dev + "）—— 非真实 RDMA"}.In(in.Lang) + " ")
	}
	label := "RDMA"
	if dev != "" {
		label += " " + dev
		if s.Device.Info.Transport != "" {
			label += " (" + s.Device.Info.Transport + ")"
		}
	} else if s.Backend != "" {
		label += " (" + s.Backend + ")"
	}
	return in.Styles.Real.R(label)
}
