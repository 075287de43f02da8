package steps

import (
	"slices"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The wire's faults: what this side's QP does to the packets it sends,
// from --wire (Config.Wire) and from a lesson that loses packets on
// purpose (Lesson.wire). Only a NIC that can impair its wire on purpose
// (the simulated NIC: verbs.WireImpairer) takes them.

// wireFaults is this side's faults, --wire's and the lesson's together.
func (s *Session) wireFaults() verbs.WireFaults {
	f := s.cfg.Wire
	if l := s.cfg.Lesson; l != nil && l.wire != nil {
		lf := l.wire(s.cfg)
		f.Drop = mergeNumbers(f.Drop, lf.Drop)
		f.Dup = mergeNumbers(f.Dup, lf.Dup)
		f.Reorder = mergeNumbers(f.Reorder, lf.Reorder)
		f.Delay = append(slices.Clone(f.Delay), lf.Delay...)
		if lf.LossPercent > 0 {
			f.LossPercent, f.Seed = lf.LossPercent, lf.Seed
		}
	}
	return f
}

func mergeNumbers(a, b []int) []int {
	out := slices.Clone(a)
	for _, n := range b {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// impairWire gives the new QP this side's faults, and says so in the
// step's note; a QP that cannot take them fails the step with what to do.
func (s *Session) impairWire(qp verbs.QP, out *Outcome) error {
	f := s.wireFaults()
	if f.IsZero() {
		return nil
	}
	imp, ok := qp.(verbs.WireImpairer)
	if !ok {
		return &Problem{
			What: text.Text{EN: "this run loses packets on purpose (" + f.String() + "), and only the simulated NIC can do that from inside rdmatour",
				ZH: "这次运行要故意丢包（" + f.String() + "），而在 rdmatour 内部只有模拟网卡能做到"},
			Fix: text.Text{EN: "run both sides with --backend sim (on Soft-RoCE, drop the packets outside rdmatour, e.g. with iptables on UDP port 4791)",
				ZH: "两端都加 --backend sim（在 Soft-RoCE 上请在 rdmatour 之外丢包，例如用 iptables 丢 UDP 4791 端口的包）"}}
	}
	if err := imp.ImpairWire(f); err != nil {
		return err
	}
	note := text.Text{EN: "--wire: this side's packets meet " + f.String() + " (packets numbered from 1 as this QP sends them, retransmissions included).",
		ZH: "--wire：本端发出的包会遇到 " + f.String() + "（按这个 QP 发出的顺序从 1 编号，重传也算）。"}
	out.Note = text.Text{EN: joinSentences(out.Note.EN, note.EN), ZH: joinSentences(out.Note.ZH, note.ZH)}
	return nil
}

func joinSentences(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}
