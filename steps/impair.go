package steps

import (
	"slices"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The wire's faults: what this side's QP does to the packets it sends,
// from --wire (Config.Wire) and from a lesson that loses packets on
// purpose (Lesson.wire). Only a NIC that can impair its wire on purpose
// (the simulated NIC: verbs.WireImpairer) takes them as the sender's; on
// a real NIC a lesson's losses are the receiver's (impair_real.go).

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
// step's note. A real NIC cannot impair its own wire: there a lesson's
// losses are made by the receiving host (dropArriving, impair_real.go).
func (s *Session) impairWire(qp verbs.QP, out *Outcome) error {
	imp, ok := qp.(verbs.WireImpairer)
	if !ok {
		return s.dropArriving(qp, out)
	}
	f := s.wireFaults()
	if f.IsZero() {
		return nil
	}
	if err := imp.ImpairWire(f); err != nil {
		return err
	}
	addNote(out, text.Text{EN: "--wire: this side's packets meet " + f.String() + " (packets numbered from 1 as this QP sends them, retransmissions included).",
		ZH: "--wire：本端发出的包会遇到 " + f.String() + "（按这个 QP 发出的顺序从 1 编号，重传也算）。"})
	return nil
}

// addNote appends a sentence to the step's note.
func addNote(out *Outcome, note text.Text) {
	out.Note = text.Text{EN: joinSentences(out.Note.EN, note.EN), ZH: joinSentences(out.Note.ZH, note.ZH)}
}

func joinSentences(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}
