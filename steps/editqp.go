package steps

import (
	"fmt"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The manual track's QP attributes and mask bits: what rdma_init_qp_attr
// returned for each transition, changed by the learner before
// ibv_modify_qp takes it.

// maskBits are the ibv_qp_attr_mask bits a transition of an RC QP uses.
var maskBits = []verbs.QPAttrMask{verbs.QPAttrState, verbs.QPAttrAccessFlags, verbs.QPAttrPKeyIndex, verbs.QPAttrPort,
	verbs.QPAttrAV, verbs.QPAttrPathMTU, verbs.QPAttrTimeout, verbs.QPAttrRetryCnt, verbs.QPAttrRNRRetry, verbs.QPAttrRQPSN,
	verbs.QPAttrMaxQPRdAtomic, verbs.QPAttrMinRNRTimer, verbs.QPAttrSQPSN, verbs.QPAttrMaxDestRdAtomic, verbs.QPAttrDestQPN}

func maskChoices() []EditChoice {
	out := make([]EditChoice, len(maskBits))
	for i, b := range maskBits {
		out[i] = EditChoice{CName: b.String(), Value: uint64(b)}
	}
	return out
}

func mtuChoices() []EditChoice {
	var out []EditChoice
	for b := 256; b <= 4096; b *= 2 {
		out = append(out, EditChoice{CName: verbs.MTUName(b), Value: uint64(b)})
	}
	return out
}

// qpAttrField is one number of struct ibv_qp_attr on a modify step.
type qpAttrField struct {
	name     string
	max      int64
	en, zh   string
	value    func(*verbs.QPAttr) *uint8
	psnValue func(*verbs.QPAttr) *uint32
}

var qpAttrFields = map[StepID][]qpAttrField{
	IDModifyRTR: {
		{name: "min_rnr_timer", max: 31, en: "How long the peer should wait before resending after this QP's RNR NAK (a 5-bit code, not a time).", zh: "这个 QP 回 RNR NAK 之后，对端应等多久再重发（5 位的编码，不是时间本身）。", value: func(a *verbs.QPAttr) *uint8 { return &a.MinRNRTimer }},
		{name: "max_dest_rd_atomic", max: 255, en: "How many RDMA READs and atomics from the peer this QP serves at once (responder resources).", zh: "这个 QP 同时为对端服务多少个 RDMA READ 和原子操作（responder resources）。", value: func(a *verbs.QPAttr) *uint8 { return &a.MaxDestRdAtom }},
		{name: "rq_psn", max: 1<<24 - 1, en: "The first PSN this QP expects from the peer; it must be the peer's sq_psn.", zh: "这个 QP 期待对端发来的第一个 PSN；它必须等于对端的 sq_psn。", psnValue: func(a *verbs.QPAttr) *uint32 { return &a.RQPSN }},
	},
	IDModifyRTS: {
		{name: "timeout", max: 31, en: "How long the requester waits for an ACK before it resends: 4.096 µs × 2^timeout (0 = forever).", zh: "请求端等 ACK 多久就重发：4.096 µs × 2^timeout（0 表示永远等）。", value: func(a *verbs.QPAttr) *uint8 { return &a.Timeout }},
		{name: "retry_cnt", max: 7, en: "How often the requester resends when no ACK comes in time.", zh: "没有按时收到 ACK 时，请求端重发多少次。", value: func(a *verbs.QPAttr) *uint8 { return &a.RetryCnt }},
		{name: "rnr_retry", max: 7, en: "How often the requester resends after Receiver Not Ready; 7 means forever.", zh: "收到 Receiver Not Ready 之后请求端重发多少次；7 表示无限次。", value: func(a *verbs.QPAttr) *uint8 { return &a.RNRRetry }},
		{name: "max_rd_atomic", max: 255, en: "How many RDMA READs and atomics this QP may have outstanding toward the peer (initiator depth).", zh: "这个 QP 同时最多能向对端发出多少个未完成的 RDMA READ 和原子操作（initiator depth）。", value: func(a *verbs.QPAttr) *uint8 { return &a.MaxRdAtomic }},
		{name: "sq_psn", max: 1<<24 - 1, en: "The first PSN this QP sends; the peer's rq_psn must be the same.", zh: "这个 QP 发出的第一个 PSN；对端的 rq_psn 必须与它相同。", psnValue: func(a *verbs.QPAttr) *uint32 { return &a.SQPSN }},
	},
}

var fromInitQPAttr = func(*Session) string { return "rdma_init_qp_attr's" }

// modifyFields are the editable fields of the manual track's transitions.
func modifyFields() []EditField {
	var out []EditField
	out = append(out, EditField{Step: IDModifyInit, Name: "qp_access_flags", CName: "attr.qp_access_flags", Kind: EditFlags, Choices: accessChoices,
		Explain:  text.Text{EN: "What the peer's requests may do to this QP's MRs, on top of each MR's own access.", ZH: "对端的请求可以对这个 QP 的 MR 做什么，在每个 MR 自己的权限之上再加一层。"},
		fallback: fromInitQPAttr})
	out = append(out, EditField{Step: IDModifyRTR, Name: "path_mtu", CName: "attr.path_mtu", Kind: EditEnum, Choices: mtuChoices(),
		Explain:  text.Text{EN: "The largest payload one packet carries on this connection; both sides must agree.", ZH: "这条连接上一个报文最多带多少载荷；两端必须一致。"},
		fallback: fromInitQPAttr})
	out = append(out, addressingFields()...)
	for _, step := range []StepID{IDModifyRTR, IDModifyRTS} {
		for _, f := range qpAttrFields[step] {
			out = append(out, EditField{Step: step, Name: f.name, CName: "attr." + f.name, Kind: EditInt, Min: 0, Max: f.max,
				Explain: text.Text{EN: f.en, ZH: f.zh}, fallback: fromInitQPAttr})
		}
	}
	for _, step := range []StepID{IDModifyInit, IDModifyRTR, IDModifyRTS} {
		out = append(out, EditField{Step: step, Name: "mask", CName: "attr_mask", Kind: EditFlags, Choices: maskChoices(),
			Explain:  text.Text{EN: "Which fields of attr ibv_modify_qp reads; each transition requires some and allows a few more.", ZH: "ibv_modify_qp 读取 attr 的哪些字段；每次迁移都有必须的字段，也允许少数可选字段。"},
			fallback: fromInitQPAttr})
	}
	return out
}

// editQPAttr applies step's edits to what rdma_init_qp_attr returned.
func (s *Session) editQPAttr(step StepID, a *verbs.QPAttr, m *verbs.QPAttrMask) youWas {
	y := youWas{}
	a.AccessFlags = verbs.Access(s.editFlags(step, "qp_access_flags", "qp_access_flags", uint64(a.AccessFlags), a.AccessFlags.String(), y))
	if e, ok := s.edit(step, "path_mtu"); ok {
		y["path_mtu"] = c.C(verbs.MTUName(a.PathMTU)).By(e.editor())
		a.PathMTU = int(e.Value.Num)
	}
	for _, f := range qpAttrFields[step] {
		if f.value != nil {
			v := f.value(a)
			*v = uint8(s.editNum(step, f.name, f.name, int64(*v), y))
			continue
		}
		v := f.psnValue(a)
		if e, ok := s.edit(step, f.name); ok {
			y[f.name] = c.Hex(uint64(*v), "").By(e.editor())
			*v = uint32(e.Value.Num)
		}
	}
	s.editAddressing(step, a, y)
	*m = verbs.QPAttrMask(s.editFlags(step, "mask", "mask", uint64(*m), fmt.Sprint(m.String()), y))
	return y
}

// editedAttrC are the assignments that give the exported program's attr
// and mask the edited values: the program passes &attr and mask as
// rdma_init_qp_attr filled them in, while the screen shows the edited
// values inside the call itself.
func editedAttrC(a verbs.QPAttr, m verbs.QPAttrMask, y youWas) []c.Stmt {
	dec := func(v uint64) c.Expr { return c.Dec(int64(v), "") }
	global := uint64(0)
	if a.AH.IsGlobal {
		global = 1
	}
	var out []c.Stmt
	for _, f := range []struct {
		name, lvalue string
		v            c.Expr
	}{
		{"qp_access_flags", "attr.qp_access_flags", c.C(a.AccessFlags.String())},
		{"path_mtu", "attr.path_mtu", c.C(verbs.MTUName(a.PathMTU))},
		{"sgid_index", "attr.ah_attr.grh.sgid_index", dec(uint64(a.AH.SGIDIndex))},
		{"is_global", "attr.ah_attr.is_global", dec(global)},
		{"min_rnr_timer", "attr.min_rnr_timer", dec(uint64(a.MinRNRTimer))},
		{"max_dest_rd_atomic", "attr.max_dest_rd_atomic", dec(uint64(a.MaxDestRdAtom))},
		{"rq_psn", "attr.rq_psn", c.Hex(uint64(a.RQPSN), "")},
		{"timeout", "attr.timeout", dec(uint64(a.Timeout))},
		{"retry_cnt", "attr.retry_cnt", dec(uint64(a.RetryCnt))},
		{"rnr_retry", "attr.rnr_retry", dec(uint64(a.RNRRetry))},
		{"max_rd_atomic", "attr.max_rd_atomic", dec(uint64(a.MaxRdAtomic))},
		{"sq_psn", "attr.sq_psn", c.Hex(uint64(a.SQPSN), "")},
		{"mask", "mask", c.C(m.String())},
	} {
		if _, ok := y[f.name]; ok {
			out = append(out, c.S(c.Assign(f.lvalue, y.on(f.name, f.v))).Only(c.ExportOnly))
		}
	}
	return out
}
