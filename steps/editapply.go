package steps

import (
	"fmt"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs"
)

// How a step reads the learner's edits: each helper returns the value
// the call will use (the edit's, or the tour's) and records, for the C
// printer, what the tour would have used where the learner changed it.

// youWas maps a C field (or argument) of one call to the value the tour
// would have given it, for each the learner edited; the printer shows
// those as `value /* you: was … */`. A nil youWas marks nothing.
type youWas map[string]c.Expr

// replace puts was in place of field's "was" (a better C for the tour's
// value), keeping who edited it; nothing when field is not edited.
func (y youWas) replace(field string, was c.Expr) {
	if old, ok := y[field]; ok {
		y[field] = was.By(old.Editor())
	}
}

// on is e, marked when the learner edited field.
func (y youWas) on(field string, e c.Expr) c.Expr {
	if was, ok := y[field]; ok {
		return c.Edited(e, was)
	}
	return e
}

// edit is this side's edit of step.field, if any.
func (s *Session) edit(step StepID, field string) (Edit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.edits.Find(s.cfg.Role, step, field)
}

// editNum is the number step.field takes (def unless edited); an edit
// is recorded in y under cfield, with def in C as "was".
func (s *Session) editNum(step StepID, field, cfield string, def int64, y youWas) int64 {
	e, ok := s.edit(step, field)
	if !ok {
		return def
	}
	y[cfield] = c.Dec(def, "").By(e.editor())
	return e.Value.Num
}

// editFlags is the flags step.field takes: the whole set, or def with
// flags added and taken off. was prints def in C.
func (s *Session) editFlags(step StepID, field, cfield string, def uint64, was string, y youWas) uint64 {
	return s.editFlagsC(step, field, cfield, def, c.C(was), y)
}

// editFlagsC is editFlags with was as C.
func (s *Session) editFlagsC(step StepID, field, cfield string, def uint64, was c.Expr, y youWas) uint64 {
	e, ok := s.edit(step, field)
	if !ok {
		return def
	}
	y[cfield] = was.By(e.editor())
	if e.Value.Abs {
		return uint64(e.Value.Num)
	}
	return def&^e.Value.Del | e.Value.Add
}

// editTarget changes t by step's rkey and remote_addr edits: the key
// named (rkey, lkey), moved (+N) or given; the address moved by the
// offset. Each edited expression carries its "was".
func (s *Session) editTarget(step StepID, t Target, lkey uint32) Target {
	edited := func() {
		if t.you == nil {
			t.you = youWas{}
		}
	}
	if e, ok := s.edit(step, "rkey"); ok {
		was := t.RKeyC.By(e.editor())
		key, expr := t.RKey, was.In(c.Symbolic)
		switch v := e.Value; {
		case v.Ref == "lkey" && lkey == t.RKey:
			// Both sides' data MR can have the same index and the key's
			// low byte is random: 1 time in 256 this side's own key is
			// the peer's. Change the low byte so the wrong key stays wrong.
			key, expr = lkey^0xff, "mr->lkey ^ 0xff"
		case v.Ref == "lkey":
			key, expr = lkey, "mr->lkey"
		case v.Rel:
			key = uint32(int64(t.RKey) + v.Num)
			expr = plusC(was.In(c.Symbolic), v.Num)
		case v.Ref == "":
			key, expr = uint32(v.Num), fmt.Sprintf("0x%x", v.Num)
		}
		t.RKey, t.RKeyC = key, c.Edited(c.Hex(uint64(key), expr), was)
		edited()
	}
	if e, ok := s.edit(step, "remote_addr"); ok && e.Value.Num != 0 {
		was := t.AddrC.By(e.editor())
		t.Addr = uint64(int64(t.Addr) + e.Value.Num)
		t.AddrC = c.Edited(c.Hex(t.Addr, plusC(was.In(c.Symbolic), e.Value.Num)), was)
		edited()
	}
	return t
}

// editText is the text step.field takes (def unless edited).
func (s *Session) editText(step StepID, field string, def string) (string, bool) {
	e, ok := s.edit(step, field)
	if !ok {
		return def, false
	}
	return e.Value.Text, true
}

// editedQPInitAttr is the seed's QP attributes on this side's CQ with
// step's cap edits.
func (s *Session) editedQPInitAttr(step StepID) (verbs.QPInitAttr, youWas) {
	a, y := seedQPInitAttr(s.cq), youWas{}
	if s.srq != nil {
		a.SRQ = s.srq.SRQ
	}
	for _, f := range []struct {
		name string
		v    *uint32
	}{{"max_send_wr", &a.Cap.MaxSendWR}, {"max_recv_wr", &a.Cap.MaxRecvWR}, {"max_send_sge", &a.Cap.MaxSendSGE}, {"max_recv_sge", &a.Cap.MaxRecvSGE},
		{"max_inline_data", &a.Cap.MaxInlineData}} {
		*f.v = uint32(s.editNum(step, f.name, f.name, int64(*f.v), y))
	}
	return a, y
}

// editConnParam applies step's rdma_conn_param edits to p.
func (s *Session) editConnParam(step StepID, p *verbs.ConnParam) youWas {
	y := youWas{}
	for _, f := range []struct {
		name string
		v    *uint8
	}{{"rnr_retry_count", &p.RNRRetryCount}, {"retry_count", &p.RetryCount}, {"responder_resources", &p.ResponderResources}, {"initiator_depth", &p.InitiatorDepth}} {
		*f.v = uint8(s.editNum(step, f.name, f.name, int64(*f.v), y))
	}
	return y
}

// plusC is the C of base moved by n: "rkey + 1", "remote_addr - 8".
func plusC(base string, n int64) string {
	if n < 0 {
		return fmt.Sprintf("%s - %d", base, uint64(-n))
	}
	return fmt.Sprintf("%s + %d", base, n)
}
