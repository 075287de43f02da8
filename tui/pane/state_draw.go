package pane

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// qpDiagram draws RESET → INIT → RTR → RTS → ERR with the current state
// highlighted and the visited ones bold.
func (in *Input) qpDiagram(cur verbs.QPState, hist []verbs.QPState) string {
	st := in.Styles
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

// qpPath is the QP's states in the order it went through them, when the
// diagram cannot say it: the QP came back through a state it had left
// (recovery from ERR goes RESET, INIT, RTR, RTS a second time).
func qpPath(hist []verbs.QPState) string {
	seen := map[verbs.QPState]bool{}
	again := false
	for _, h := range hist {
		again = again || seen[h]
		seen[h] = true
	}
	if !again {
		return ""
	}
	names := make([]string, len(hist))
	for i, h := range hist {
		names[i] = h.String()
	}
	return strings.Join(names, " → ")
}

// Hexdump shows the non-zero rows of the buffer (or the first two), 16
// bytes a row where the pane fits it, with the bytes changed since the
// learner's last step highlighted.
func (in *Input) Hexdump(b steps.BufferState, w int) []string {
	st := in.Styles
	bpr := 16
	switch {
	case w >= 6+16*3+2+16+1:
	case w >= 6+8*3+2+8+1:
		bpr = 8
	default:
		bpr = 4
	}
	changed := func(i int) bool { return in.fresh(b.ChangedAt(i)) }
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
		out = append(out, "  "+st.Dim.R(fmt.Sprintf(text.Text{EN: "%d bytes, all zero", ZH: "%d 字节，全为 0"}.In(in.Lang), len(b.Bytes))))
	} else {
		out = append(out, "  "+st.Dim.R(fmt.Sprintf(text.Text{EN: "%d bytes; non-zero rows:", ZH: "%d 字节；非零的行："}.In(in.Lang), len(b.Bytes))))
	}
	anyChanged := false
	for _, off := range rows {
		line, rowChanged := in.hexRow(b.Bytes, off, bpr, changed)
		anyChanged = anyChanged || rowChanged
		out = append(out, line)
	}
	if more > 0 {
		out = append(out, "  "+st.Dim.R(fmt.Sprintf(text.Text{EN: "… %d more non-zero rows", ZH: "… 还有 %d 行非零"}.In(in.Lang), more)))
	}
	if anyChanged {
		out = append(out, "  "+st.Changed.R(text.Text{EN: "highlighted: written since your last step", ZH: "高亮：上一步之后写入的字节"}.In(in.Lang)))
	}
	return out
}

// hexRow is one row of the dump: offset, hex, ASCII (only printable
// ASCII is shown as text: the buffer holds the peer's bytes), with the
// bytes changed since the learner's last step highlighted.
func (in *Input) hexRow(b []byte, off, bpr int, changed func(int) bool) (string, bool) {
	st := in.Styles
	var hx, asc strings.Builder
	rowChanged := false
	for i := off; i < off+bpr; i++ {
		if i >= len(b) {
			hx.WriteString("   ")
			continue
		}
		c := b[i]
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
	return fmt.Sprintf("%s%04x  %s|%s|", mark, off, hx.String(), asc.String()), rowChanged
}
