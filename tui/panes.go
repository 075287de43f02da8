package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// curStep is the step the explanation and the call pane are about: the
// running one, else the one just run, else the first.
func (m *model) curStep() (side, idx int) {
	switch {
	case m.running:
		return m.runSide, m.runIdx
	case m.lastIdx >= 0:
		return m.lastSide, m.lastIdx
	case !m.demo && m.snaps[0].Next > 0:
		// Steps ran before this model saw them (or the tour ended).
		return 0, min(m.snaps[0].Next, len(m.snaps[0].Steps)) - 1
	}
	side, idx, ok := m.nextTurn()
	if !ok {
		return 0, 0
	}
	return side, idx
}

func (m *model) stepStatus(side, idx int) (steps.StepStatus, bool) {
	if side >= len(m.snaps) || idx < 0 || idx >= len(m.snaps[side].Steps) {
		return steps.StepStatus{}, false
	}
	return m.snaps[side].Steps[idx], true
}

func (m *model) roleName(side int) string { return m.snaps[side].Role.String() }

func (m *model) stepTitle(ss steps.StepStatus) string {
	switch m.lang {
	case LangZH:
		return ss.Title.In(LangZH)
	case LangBoth:
		return ss.Title.EN + " · " + ss.Title.ZH
	}
	return ss.Title.EN
}

func (m *model) stepsTitle(side int) string {
	t := title(m.lang, "Steps", "步骤")
	if m.demo {
		t = m.roleName(side) + " · " + t
	}
	done := 0
	for _, ss := range m.snaps[side].Steps {
		if ss.State == steps.Succeeded {
			done++
		}
	}
	return fmt.Sprintf("%s %d/%d", t, done, len(m.snaps[side].Steps))
}

// stepsLines lists the tour with status marks; cur is the line to keep in
// view.
func (m *model) stepsLines(side, _ int) ([]string, int) {
	st := m.styles
	snap := m.snaps[side]
	nextSide, nextIdx, hasNext := m.nextTurn()
	lines := make([]string, 0, len(snap.Steps))
	cur := 0
	for i, ss := range snap.Steps {
		mark := " "
		switch ss.State {
		case steps.Active:
			mark = st.Running.R(spinnerFrame(m.frame))
		case steps.Succeeded:
			mark = st.OK.R("✓")
			if expectedError(ss) {
				mark = st.Expected.R("!")
			}
		case steps.FailedState:
			mark = st.Err.R("✗")
		}
		text := fmt.Sprintf("%2d %s", i+1, m.stepTitle(ss))
		isNext := hasNext && !m.running && nextSide == side && nextIdx == i
		switch {
		case ss.State == steps.Active || (m.running && m.runSide == side && m.runIdx == i):
			text = st.Running.R(text)
			cur = i
		case isNext:
			mark = st.Bold.R("›")
			text = st.Bold.R(text)
			cur = i
		case ss.State == steps.FailedState:
			text = st.Err.R(text)
			cur = i
		case expectedError(ss):
			text = st.Expected.R(text)
		case ss.State == steps.Pending:
			text = st.Dim.R(text)
		}
		lines = append(lines, mark+" "+text)
	}
	if snap.Done && !snap.Failed {
		cur = len(lines) - 1
	}
	return lines, cur
}

// expectedError says the step ended with the error its lesson is about.
func expectedError(ss steps.StepStatus) bool {
	return ss.State == steps.Succeeded && ss.Outcome != nil && ss.Outcome.Expected
}

// expectedLines is the call pane's block for a lesson's expected error:
// a headline, then the error explained, in the chosen language(s).
func (m *model) expectedLines(o *steps.Outcome, w int) []string {
	st := m.styles
	var out []string
	head := func(s string) {
		for _, l := range wrap(s, w) {
			out = append(out, st.Expected.R(l))
		}
	}
	body := func(s string) {
		for _, l := range wrap(s, w-2) {
			out = append(out, st.Expected.R("│")+" "+l)
		}
	}
	switch m.lang {
	case LangZH:
		head(expectedZH)
		body(o.Failure.In(LangZH))
	case LangBoth:
		head(expectedEN)
		body(o.Failure.EN)
		head(expectedZH)
		body(o.Failure.In(LangZH))
	default:
		head(expectedEN)
		body(o.Failure.EN)
	}
	return out
}

// The expected-error headlines.
const (
	expectedEN = "EXPECTED ERROR — the point of this lesson"
	expectedZH = "预期错误 EXPECTED ERROR —— 本课的重点："
)

func (m *model) callTitle() string {
	side, idx := m.curStep()
	t := title(m.lang, "C call", "C 调用")
	if ss, ok := m.stepStatus(side, idx); ok {
		t += fmt.Sprintf(" · %d. %s", idx+1, m.stepTitle(ss))
		if m.demo {
			t = m.roleName(side) + " · " + t
		}
	}
	return t
}

// callLines: what the step just run executed (actual values), what it
// produced, and the next call in its generic form.
func (m *model) callLines(w int) []string {
	st := m.styles
	var out []string
	side, idx := m.curStep()
	ss, ok := m.stepStatus(side, idx)
	switch {
	case !ok:
	case m.running:
		waits := ""
		if idx < len(m.tourOf(side)) && m.tourOf(side)[idx].Waits {
			waits = tr(m.lang, " (waiting for the peer / the network)", "（等待对端或网络）")
		}
		out = append(out, st.Running.R(spinnerFrame(m.frame)+" "+tr(m.lang, "running", "执行中")+waits))
		for _, l := range wrap(ss.Call, w) {
			out = append(out, st.Call.R(l))
		}
	case ss.Outcome != nil:
		// A lesson's expected error comes first: it is what the learner
		// ran the lesson for, and the call pane is short on a small screen.
		if ss.Outcome.Expected {
			out = append(out, m.expectedLines(ss.Outcome, w)...)
		}
		for _, l := range wrap(ss.Outcome.Call, w) {
			out = append(out, st.Call.R(l))
		}
		for _, kv := range ss.Outcome.Results {
			for _, l := range wrap(kv.Name+" = "+kv.Value, w-2) {
				out = append(out, "  "+l)
			}
		}
		if n := ss.Outcome.Note.In(textLang(m.lang)); n != "" {
			for _, l := range wrap(n, w) {
				out = append(out, st.Dim.R(l))
			}
		}
		if m.lang == LangBoth && ss.Outcome.Note.ZH != "" {
			for _, l := range wrap(ss.Outcome.Note.ZH, w) {
				out = append(out, st.Dim.R(l))
			}
		}
	default:
		out = append(out, st.Dim.R(tr(m.lang, "Press enter to make this call:", "按 enter 执行这个调用：")))
		for _, l := range wrap(ss.Call, w) {
			out = append(out, st.Call.R(l))
		}
		return out
	}
	if m.running {
		return out
	}
	if ns, ni, more := m.nextTurn(); more {
		if nss, ok := m.stepStatus(ns, ni); ok {
			lead := tr(m.lang, "next: ", "下一步：")
			if m.demo {
				lead += m.roleName(ns) + " "
			}
			for i, l := range wrap(lead+nss.Call, w) {
				if i == 0 {
					out = append(out, st.Bold.R(l))
				} else {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

func (m *model) tourOf(side int) []steps.Step {
	if m.tours == nil {
		for _, s := range m.sessions {
			m.tours = append(m.tours, s.Steps())
		}
	}
	return m.tours[side]
}

func (m *model) explainTitle() string {
	if m.showLesson {
		return title(m.lang, "Lesson", "课程") + " · " + m.lesson + " · L: " + tr(m.lang, "step page", "步骤讲解")
	}
	side, idx := m.curStep()
	t := title(m.lang, "Explanation", "讲解")
	if ss, ok := m.stepStatus(side, idx); ok {
		t += " · " + ss.ID
	}
	if m.lessonDoc {
		t += " · L: " + tr(m.lang, "lesson page", "课程讲解")
	}
	return t
}

// explainLines renders the page(s) of the current step, or the lesson's.
func (m *model) explainLines(w int) []string {
	side, idx := m.curStep()
	ss, ok := m.stepStatus(side, idx)
	if m.showLesson {
		snap := m.snaps[0]
		ss, ok = steps.StepStatus{ID: lessonPageID(m.lesson), Title: snap.LessonTitle}, true
	}
	if !ok {
		return nil
	}
	langs := []string{textLang(m.lang)}
	if m.lang == LangBoth {
		langs = []string{LangEN, LangZH}
	}
	var out []string
	for i, l := range langs {
		if i > 0 {
			out = append(out, "", m.styles.Dim.R(strings.Repeat("─", 3)+" 中文 "+strings.Repeat("─", max(0, w-9))), "")
		}
		out = append(out, m.page(l, ss, w)...)
	}
	return out
}

func (m *model) page(lang string, ss steps.StepStatus, w int) []string {
	var md string
	var err error
	if m.docs == nil {
		err = fmt.Errorf("no docs")
	} else {
		md, err = m.docs(lang, ss.ID)
	}
	if err != nil || strings.TrimSpace(md) == "" {
		out := []string{m.styles.Bold.R(ss.Title.In(lang))}
		if ss.Outcome != nil {
			out = append(out, wrap(ss.Outcome.Note.In(lang), w)...)
		}
		msg := tr(lang, "(no explanation page for this step yet)", "（这一步的讲解页面还没有）")
		return append(out, m.styles.Dim.R(msg))
	}
	if lines := m.glam.render(lang, ss.ID, md, w); lines != nil {
		return lines
	}
	return wrap(md, w)
}

func (m *model) stateTitle(side int) string {
	t := title(m.lang, "Live state", "实时状态")
	if m.demo {
		t = m.roleName(side) + " · " + t
	}
	return t
}

func (m *model) wireTitle(side int) string {
	t := title(m.lang, "Wire & counters", "线上报文与计数器")
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

// qpDiagram draws RESET → INIT → RTR → RTS → ERR with the current state
// highlighted and the visited ones bold.
func (m *model) qpDiagram(cur verbs.QPState, hist []verbs.QPState) string {
	st := m.styles
	seen := map[verbs.QPState]bool{}
	for _, h := range hist {
		seen[h] = true
	}
	var parts []string
	for _, s := range []verbs.QPState{verbs.QPSReset, verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS, verbs.QPSErr} {
		name := s.String()
		switch {
		case s == cur && st.NoColor:
			name = "[" + name + "]"
		case s == cur && s == verbs.QPSErr:
			name = st.ErrBanner.R(" " + name + " ")
		case s == cur:
			name = st.Current.R(" " + name + " ")
		case seen[s]:
			name = st.Bold.R(name)
		default:
			name = st.Dim.R(name)
		}
		parts = append(parts, name)
	}
	return strings.Join(parts[:4], " → ") + "   " + parts[4]
}

// hexdump shows the non-zero rows of the buffer (or the first two), with
// bytes changed in the last second highlighted.
func (m *model) hexdump(b steps.BufferState, w int) []string {
	st := m.styles
	bpr := 16
	switch {
	case w >= 6+16*3+2+16+1:
	case w >= 6+8*3+2+8+1:
		bpr = 8
	default:
		bpr = 4
	}
	now := m.now()
	changed := func(i int) bool {
		return i < len(b.ChangedAt) && !b.ChangedAt[i].IsZero() && now.Sub(b.ChangedAt[i]) < highlightFor
	}
	var rows []int
	for off := 0; off < len(b.Bytes); off += bpr {
		for _, c := range b.Bytes[off:min(off+bpr, len(b.Bytes))] {
			if c != 0 {
				rows = append(rows, off)
				break
			}
		}
	}
	nonZero := len(rows)
	if nonZero == 0 {
		rows = []int{0, bpr}
	}
	const maxRows = 16
	more := 0
	if len(rows) > maxRows {
		more = len(rows) - maxRows
		rows = rows[:maxRows]
	}
	var out []string
	if nonZero == 0 {
		out = append(out, "  "+st.Dim.R(fmt.Sprintf(tr(m.lang, "%d bytes, all zero", "%d 字节，全为 0"), len(b.Bytes))))
	} else {
		out = append(out, "  "+st.Dim.R(fmt.Sprintf(tr(m.lang, "%d bytes; non-zero rows:", "%d 字节；非零的行："), len(b.Bytes))))
	}
	var hx, asc strings.Builder
	anyChanged := false
	for _, off := range rows {
		hx.Reset()
		asc.Reset()
		rowChanged := false
		for i := off; i < off+bpr; i++ {
			if i >= len(b.Bytes) {
				hx.WriteString("   ")
				continue
			}
			c := b.Bytes[i]
			h := fmt.Sprintf("%02x", c)
			a := "."
			if c >= 0x20 && c < 0x7f {
				a = string(rune(c))
			}
			if changed(i) {
				h, a = st.Changed.R(h), st.Changed.R(a)
				rowChanged = true
			}
			hx.WriteString(h)
			hx.WriteByte(' ')
			asc.WriteString(a)
		}
		mark := " "
		if rowChanged && st.NoColor {
			mark = "*"
		}
		anyChanged = anyChanged || rowChanged
		out = append(out, fmt.Sprintf("%s%04x  %s|%s|", mark, off, hx.String(), asc.String()))
	}
	if more > 0 {
		out = append(out, "  "+st.Dim.R(fmt.Sprintf(tr(m.lang, "… %d more non-zero rows", "… 还有 %d 行非零"), more)))
	}
	if anyChanged {
		out = append(out, "  "+st.Changed.R(tr(m.lang, "highlighted: changed in the last second", "高亮：最近一秒内变化的字节")))
	}
	return out
}

// timeline merges both sides' messages (the demo sees each message from
// both ends; show it once).
func (m *model) timeline() []steps.TimelineEntry {
	if len(m.snaps) == 1 {
		return m.snaps[0].Timeline
	}
	srv, cli := m.snaps[0].Timeline, m.snaps[1].Timeline
	used := make([]bool, len(srv))
	all := append([]steps.TimelineEntry(nil), srv...)
	for _, e := range cli {
		dup := false
		for i, s := range srv {
			if !used[i] && s.Label == e.Label && s.FromServer == e.FromServer {
				used[i], dup = true, true
				break
			}
		}
		if !dup {
			all = append(all, e)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.Before(all[j].Time) })
	return all
}

// timelineLines draws server | client with an arrow per message.
func (m *model) timelineLines(w int) []string {
	st := m.styles
	out := []string{st.Bold.R("server") + strings.Repeat(" ", max(1, w-12)) + st.Bold.R("client")}
	entries := m.timeline()
	if len(entries) == 0 {
		return append(out, "", st.Dim.R(center(tr(m.lang, "no messages yet", "还没有消息"), w)))
	}
	for _, e := range entries {
		label := " " + e.Label + " "
		n := max(0, w-2-width(label))
		l, r := n/2, n-n/2
		var line string
		if e.FromServer {
			line = "├" + strings.Repeat("─", l) + label + strings.Repeat("─", r) + "▶"
		} else {
			line = "◀" + strings.Repeat("─", l) + label + strings.Repeat("─", r) + "┤"
		}
		out = append(out, st.Call.R(line))
		if e.Detail != "" {
			out = append(out, st.Dim.R(center(e.Detail, w)))
		}
	}
	return out
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
