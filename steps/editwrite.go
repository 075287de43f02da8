package steps

import (
	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs"
)

// editedWriteWR is the client's WRITE of n bytes with step's edits:
// opcode, send_flags, wr_id, length and num_sge (each SGE the same
// buffer). It returns the WR and the length's C, and leaves in t.you
// what the printer must mark. t's address and rkey are already edited.
func (s *Session) editedWriteWR(step StepID, op verbs.WROpcode, n uint32, t *Target) (verbs.SendWR, c.Expr) {
	y, targetEdited := youWas{}, t.you != nil
	wr := writeWR(op, WRIDWrite, s.mrData, n, t.Addr, t.RKey)
	wr.Opcode = verbs.WROpcode(s.editNum(step, "opcode", "opcode", int64(op), y))
	y.replace("opcode", c.C(op.String()))
	wr.Flags = verbs.SendFlags(s.editFlags(step, "send_flags", "send_flags", uint64(wr.Flags), wr.Flags.String(), y))
	wr.WRID = uint64(s.editNum(step, "wr_id", "wr_id", int64(wr.WRID), y))
	length := c.Dec(int64(n), "strlen(buf) + 1")
	if e, ok := s.edit(step, "length"); ok {
		wr.SGList[0].Length = uint32(e.Value.Num)
		length = c.Edited(c.Dec(e.Value.Num, ""), length.By(e.editor()))
	}
	if k := int(s.editNum(step, "num_sge", "num_sge", 1, y)); k != 1 {
		wr.SGList = repeatSGE(wr.SGList[0], k)
	}
	if wr.Opcode == verbs.WRRDMAWriteWithImm || wr.Opcode == verbs.WRSendWithImm {
		wr.ImmData = ImmValue
	}
	if len(y) > 0 || targetEdited {
		t.you = y
	}
	return wr, length
}

// repeatSGE is k copies of g (none for 0).
func repeatSGE(g verbs.SGE, k int) []verbs.SGE {
	out := make([]verbs.SGE, k)
	for i := range out {
		out[i] = g
	}
	return out
}

// sendBytes is how many bytes wr carries.
func sendBytes(wr verbs.SendWR) uint32 {
	var n uint32
	for _, g := range wr.SGList {
		n += g.Length
	}
	return n
}
