package steps

import (
	"fmt"
	"net/netip"
	"strings"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The C each step shows is built here from the real arguments of its
// calls (steps/cprint renders it). The variables the lines use are those
// of CDecls.

// CDecls declares every variable a printed line uses, with the seed's
// struct remote_info: the exported program has them, and so does the test
// that compiles every line. They are not static, so that a program that
// does not use one of them still builds with -Wall -Werror.
const CDecls = `struct remote_info {
	uint64_t addr_be;
	uint32_t rkey_be;
	uint32_t size_be;
	uint64_t doorbell_addr_be;
	uint32_t doorbell_rkey_be;
	uint32_t doorbell_size_be;
} __attribute__((packed));

struct rdma_event_channel *ec;
struct rdma_cm_id *listener, *id;
struct rdma_cm_event *event;
struct ibv_pd *pd;
struct ibv_cq *cq;
struct ibv_qp *qp;
char *buf, *recv_buf, *send_buf;
uint64_t *doorbell;
struct ibv_mr *mr, *doorbell_mr, *recv_mr, *send_mr;
struct ibv_send_wr *bad_send;
struct ibv_recv_wr *bad_recv;
struct ibv_wc wc;
struct remote_info info;
uint64_t remote_addr, doorbell_addr;
uint32_t rkey, size, doorbell_rkey, doorbell_size;
struct ibv_qp_attr attr;
int mask;
struct ibv_qp_init_attr init_attr;
struct rdma_conn_param param;
struct ibv_send_wr wr;
struct ibv_recv_wr recv_wr;
struct ibv_device_attr dev_attr; /* the atomic tour */
uint64_t old, old2;             /* the atomic tour: values the atomics found */
struct addrinfo *addr, *dst, *src;
const char *port;
struct ibv_ah *ah;
struct ibv_ah_attr ah_attr;
uint32_t remote_qpn, remote_qkey;
int resent; /* the ud tour: how many times the client sent its message again */
struct ibv_wc answer_wc; /* the ud tour: the server's answer's completion */
int answered;
struct rlimit memlock, old_memlock; /* the memlock lesson */
struct ibv_comp_channel *channel; /* --completion event */
struct ibv_cq *ev_cq;
void *ev_ctx;
`

// withC returns o showing stmts: o.C keeps them for export-c, o.Call is
// their screen rendering.
func withC(o Outcome, stmts ...c.Stmt) Outcome {
	o.C = append(o.C, stmts...)
	o.Call = c.Lines(o.C, c.Actual)
	return o
}

// failed marks the call as having failed with err.
func failed(s c.Stmt, err error) c.Stmt {
	if s.Check == c.Null {
		return s.Returned("NULL, errno = " + errnoText(err))
	}
	return s.Returned("-1, errno = " + errnoText(err))
}

// postFailed is for ibv_post_*, which return the errno itself.
func postFailed(s c.Stmt, err error) c.Stmt { return s.Returned(errnoText(err)) }

// sockaddr is a struct sockaddr * for addr: a compound literal of the
// family's type on screen, sym in the program and before the run.
func sockaddr(ap netip.AddrPort, sym string) c.Expr {
	port := c.Call("htons", c.Dec(int64(ap.Port()), ""))
	var lit c.Expr
	if a := ap.Addr().Unmap(); a.Is4() {
		v := a.As4()
		lit = c.Compound("struct sockaddr_in", c.F("sin_family", c.C("AF_INET")), c.F("sin_port", port),
			c.F("sin_addr.s_addr", c.Call("htonl", c.C(fmt.Sprintf("0x%02x%02x%02x%02x /* %s */", v[0], v[1], v[2], v[3], a)))))
	} else {
		v := a.As16()
		var bs []string
		for _, b := range v {
			bs = append(bs, fmt.Sprintf("0x%02x", b))
		}
		lit = c.Compound("struct sockaddr_in6", c.F("sin6_family", c.C("AF_INET6")), c.F("sin6_port", port),
			c.F("sin6_addr.s6_addr", c.C("{ "+strings.Join(bs, ", ")+" } /* "+a.String()+" */")))
	}
	return c.Value("(struct sockaddr *)&"+lit.In(c.Actual), sym)
}

// getEvent is rdma_get_cm_event as the step saw it (got: an event came);
// the program waits for want with its get_event helper, which dies on
// anything else.
func getEvent(ev verbs.CMEvent, want verbs.CMEventType, got bool) c.Stmt {
	s := c.S(c.Either(c.Call("rdma_get_cm_event", c.C("ec"), c.C("&event")),
		c.Call("get_event", c.C("ec"), c.C("&event"), c.C(want.String()))))
	s = s.Hinted(want.String())
	switch {
	case !got:
		return s.Noted("blocked: no event came")
	case ev.Status != 0:
		return s.Returned(fmt.Sprintf("0: %s, status %d", ev.Type, ev.Status))
	}
	return s.Returned("0: " + ev.Type.String())
}

// ackEvent is rdma_ack_cm_event(event).
func ackEvent() c.Stmt {
	return c.Must("rdma_ack_cm_event", c.Call("rdma_ack_cm_event", c.C("event"))).Returned("0")
}

// sge is the one scatter/gather element of a work request: local is the
// buffer variable, mrVar its MR's variable.
func sge(g verbs.SGE, local, mrVar string, length c.Expr) c.Expr {
	return c.Ref(c.Compound("struct ibv_sge",
		c.F("addr", c.Hex(g.Addr, "(uintptr_t)"+local)), c.F("length", length), c.F("lkey", c.Hex(uint64(g.LKey), mrVar+"->lkey"))))
}

// sgeInit is one SGE's initialiser { .addr, .length, .lkey }.
func sgeInit(g verbs.SGE, local, mrVar string, length c.Expr) c.Expr {
	return c.Init(c.F("addr", c.Hex(g.Addr, "(uintptr_t)"+local)), c.F("length", length), c.F("lkey", c.Hex(uint64(g.LKey), mrVar+"->lkey")))
}

// sgeList is a WR's sg_list: NULL for none, one SGE as &(struct ibv_sge),
// more as an array of the same entries.
func sgeList(gs []verbs.SGE, local, mrVar string, length c.Expr) c.Expr {
	switch len(gs) {
	case 0:
		return c.C("NULL")
	case 1:
		return sge(gs[0], local, mrVar, length)
	}
	one := sgeInit(gs[0], local, mrVar, length)
	elems := make([]c.Expr, len(gs))
	for i := range elems {
		elems[i] = one
	}
	return c.Array("struct ibv_sge", elems...)
}

// sendWR is &(struct ibv_send_wr){...} for wr (&wr before the run).
// remote is the target's address and rkey (ignored for SEND).
func sendWR(wr verbs.SendWR, local, mrVar string, length c.Expr, remote Target) c.Expr {
	y := remote.you
	fs := []c.Field{c.F("wr_id", y.on("wr_id", c.Dec(int64(wr.WRID), ""))),
		c.F("sg_list", sgeList(wr.SGList, local, mrVar, length)), c.F("num_sge", y.on("num_sge", c.Dec(int64(len(wr.SGList)), ""))),
		c.F("opcode", y.on("opcode", c.C(wr.Opcode.String()))), c.F("send_flags", y.on("send_flags", c.C(wr.Flags.String())))}
	switch {
	case wr.Opcode.IsAtomic():
		fs = append(fs, c.F("wr.atomic", c.Init(c.F("remote_addr", remote.AddrC), c.F("compare_add", remote.CompareAddC),
			c.F("swap", remote.SwapC), c.F("rkey", remote.RKeyC))))
	case wr.Opcode != verbs.WRSend && wr.Opcode != verbs.WRSendWithImm:
		fs = append(fs, c.F("wr.rdma", c.Init(c.F("remote_addr", remote.AddrC), c.F("rkey", remote.RKeyC))))
	}
	if wr.Opcode == verbs.WRRDMAWriteWithImm || wr.Opcode == verbs.WRSendWithImm {
		fs = append(fs, c.F("imm_data", c.Call("htonl", c.Hex(uint64(wr.ImmData), ""))))
	}
	return c.Ref(c.Named("wr", c.Compound("struct ibv_send_wr", fs...)))
}

// pollOne is ibv_poll_cq as the screen shows it; the program polls with
// its poll_one helper until the completion comes, and dies on an error.
func pollOne(want verbs.WCOpcode, what string) c.Stmt {
	return c.S(c.Either(c.Call("ibv_poll_cq", c.C("cq"), c.C("1"), c.C("&wc")),
		c.Call("poll_one", c.C("cq"), c.C("&wc"), c.C(want.String()), c.Str(what))))
}

// wcText prints a completion as C initialisers. For a failed completion
// only wr_id, status, qp_num and vendor_err are defined (ibv_poll_cq(3));
// rxe, for one, leaves garbage in opcode, so it is not printed.
func wcText(wc verbs.WC) string {
	if wc.Status != verbs.WCSuccess {
		return fmt.Sprintf("1: wc = { .wr_id = %d, .status = %s, .qp_num = 0x%x, .vendor_err = 0x%x } (opcode, byte_len: undefined on error)", wc.WRID, wc.Status.CName(), wc.QPNum, wc.VendorErr)
	}
	t := fmt.Sprintf("1: wc = { .wr_id = %d, .status = %s, .opcode = %s, .byte_len = %d, .qp_num = 0x%x", wc.WRID, wc.Status.CName(), wc.Opcode, wc.ByteLen, wc.QPNum)
	if wc.HasImm {
		t += fmt.Sprintf(", .imm_data = htonl(0x%x)", wc.ImmData)
	}
	return t + " }"
}

// opcodeText is the completion's opcode, which is defined only on success.
func opcodeText(wc verbs.WC) text.Text {
	if wc.Status != verbs.WCSuccess {
		return valUndefined
	}
	return text.Same(wc.Opcode.String())
}

// qpInitAttrC is &(struct ibv_qp_init_attr){...} for a (&init_attr
// before the run).
func qpInitAttrC(a verbs.QPInitAttr, y youWas) c.Expr {
	capF := func(name string, v uint32) c.Field { return c.F(name, y.on(name, c.Dec(int64(v), ""))) }
	fs := []c.Field{c.F("send_cq", c.C("cq")), c.F("recv_cq", c.C("cq"))}
	if a.SRQ != nil { // a workshop room's shared receive queue (host_srq.go)
		fs = append(fs, c.F("srq", c.C("srq")))
	}
	caps := []c.Field{capF("max_send_wr", a.Cap.MaxSendWR), capF("max_recv_wr", a.Cap.MaxRecvWR),
		capF("max_send_sge", a.Cap.MaxSendSGE), capF("max_recv_sge", a.Cap.MaxRecvSGE)}
	if _, edited := y["max_inline_data"]; edited || a.Cap.MaxInlineData != 0 { // the seed leaves it 0
		caps = append(caps, capF("max_inline_data", a.Cap.MaxInlineData))
	}
	fs = append(fs, c.F("qp_type", c.C("IBV_QPT_RC")), c.F("cap", c.Init(caps...)))
	return c.Ref(c.Named("init_attr", c.Compound("struct ibv_qp_init_attr", fs...)))
}

// connParamC is &(struct rdma_conn_param){...} for p (&param before the
// run); private is the private data's expression (none unless
// hasPrivate); ownQP names the manual track's QP in qp_num. hint is what
// the pre-run form says of param: the fields this tour sets for a reason.
// y marks the fields the learner edited; retry_count is printed only
// when it is not 0 (the seed leaves it 0).
func connParamC(p verbs.ConnParam, private c.Expr, hasPrivate, ownQP bool, y youWas) (param c.Expr, hint string) {
	var fs, said []c.Field
	if ownQP {
		said = append(said, c.F("qp_num", c.Hex(uint64(p.QPNum), "qp->qp_num")))
	}
	if hasPrivate {
		said = append(said, c.F("private_data", private))
		fs = append(fs, said[len(said)-1], c.F("private_data_len", c.C("sizeof info")))
	}
	num := func(name string, v uint8) c.Field { return c.F(name, y.on(name, c.Dec(int64(v), ""))) }
	fs = append(fs, num("responder_resources", p.ResponderResources), num("initiator_depth", p.InitiatorDepth), num("rnr_retry_count", p.RNRRetryCount))
	if _, edited := y["retry_count"]; edited || p.RetryCount != 0 {
		fs = append(fs, num("retry_count", p.RetryCount))
	}
	if ownQP {
		fs = append(fs, said[0])
	}
	var hints []string
	for _, f := range said {
		hints = append(hints, "param."+f.Name+" = "+f.Val.In(c.Generic))
	}
	return c.Ref(c.Named("param", c.Compound("struct rdma_conn_param", fs...))), strings.Join(hints, ", ")
}

// remoteInfoC is info = (struct remote_info){...}: what the server sends.
// addr is the expression the data buffer's address is put in with.
// mr names the data MR whose rkey goes out ("mr"; "counter_mr" in an
// atomic workshop room).
func remoteInfoC(r privdata.RemoteInfo, addr c.Expr, mr string) c.Stmt {
	return c.S(c.Assign("info", c.Compound("struct remote_info",
		c.F("addr_be", addr),
		c.F("rkey_be", c.Call("htonl", c.Hex(uint64(r.RKey), mr+"->rkey"))),
		c.F("size_be", c.Call("htonl", c.Dec(int64(r.Size), ""))),
		c.F("doorbell_addr_be", c.Call("htobe64", c.Hex(r.DoorbellAddr, "(uintptr_t)doorbell"))),
		c.F("doorbell_rkey_be", c.Call("htonl", c.Hex(uint64(r.DoorbellRKey), "doorbell_mr->rkey"))),
		c.F("doorbell_size_be", c.Call("htonl", c.Dec(int64(r.DoorbellSize), ""))))))
}

// readRemoteInfo is the client reading remote_info from the REP's
// private data, the same for both tracks.
func readRemoteInfo(r privdata.RemoteInfo, privateLen int) []c.Stmt {
	return []c.Stmt{
		c.S(c.C(`if (event->param.conn.private_data_len < sizeof info) die_msg("server private_data missing or too small")`)).Only(c.ExportOnly),
		c.S(c.Call("memcpy", c.C("&info"), c.C("event->param.conn.private_data"), c.C("sizeof info"))).Noted(fmt.Sprintf("private_data_len = %d", privateLen)),
		c.S(c.Assign("remote_addr", c.Call("be64toh", c.C("info.addr_be")))).Returned(fmt.Sprintf("0x%x", r.Addr)),
		c.S(c.Assign("rkey", c.Call("ntohl", c.C("info.rkey_be")))).Returned(fmt.Sprintf("0x%x", r.RKey)),
		c.S(c.Assign("size", c.Call("ntohl", c.C("info.size_be")))).Returned(fmt.Sprint(r.Size)),
		c.S(c.Assign("doorbell_addr", c.Call("be64toh", c.C("info.doorbell_addr_be")))).Returned(fmt.Sprintf("0x%x", r.DoorbellAddr)),
		c.S(c.Assign("doorbell_rkey", c.Call("ntohl", c.C("info.doorbell_rkey_be")))).Returned(fmt.Sprintf("0x%x", r.DoorbellRKey)),
		c.S(c.Assign("doorbell_size", c.Call("ntohl", c.C("info.doorbell_size_be")))).Returned(fmt.Sprint(r.DoorbellSize)),
	}
}

// ahAttrC is struct ibv_ah_attr as a brace initialiser.
// y marks the fields the learner edited (is_global, sgid_index).
func ahAttrC(a verbs.AHAttr, y youWas) c.Expr {
	dgid := a.DGID
	if !dgid.IsValid() {
		dgid = netip.IPv6Unspecified()
	}
	raw := dgid.As16()
	bs := make([]string, len(raw))
	for i, b := range raw {
		bs[i] = fmt.Sprintf("0x%02x", b)
	}
	g := 0
	if a.IsGlobal {
		g = 1
	}
	return c.Init(c.F("is_global", y.on("is_global", c.Dec(int64(g), ""))),
		c.F("grh", c.Init(c.F("dgid", c.C("{ .raw = { "+strings.Join(bs, ", ")+" } } /* "+dgid.String()+" */")),
			c.F("flow_label", c.Dec(int64(a.FlowLabel), "")), c.F("sgid_index", y.on("sgid_index", c.Dec(int64(a.SGIDIndex), ""))),
			c.F("hop_limit", c.Dec(int64(a.HopLimit), "")), c.F("traffic_class", c.Dec(int64(a.TrafficClass), "")))),
		c.F("dlid", c.Dec(int64(a.DLID), "")), c.F("sl", c.Dec(int64(a.SL), "")),
		c.F("src_path_bits", c.Dec(int64(a.SrcPathBits), "")), c.F("static_rate", c.Dec(int64(a.StaticRate), "")),
		c.F("port_num", c.Dec(int64(a.PortNum), "")))
}

// qpAttrC is &(struct ibv_qp_attr){...} with the fields mask selects: on
// screen the values rdma_init_qp_attr returned, in the program &attr.
func qpAttrC(a verbs.QPAttr, m verbs.QPAttrMask, y youWas) c.Expr {
	var fs []c.Field
	add := func(bit verbs.QPAttrMask, name string, v c.Expr) {
		if m&bit != 0 {
			fs = append(fs, c.F(name, y.on(name, v)))
		}
	}
	dec := func(v uint64) c.Expr { return c.Dec(int64(v), "") }
	add(verbs.QPAttrState, "qp_state", c.C(a.State.CName()))
	add(verbs.QPAttrAccessFlags, "qp_access_flags", c.C(a.AccessFlags.String()))
	add(verbs.QPAttrPKeyIndex, "pkey_index", dec(uint64(a.PKeyIndex)))
	add(verbs.QPAttrPort, "port_num", dec(uint64(a.PortNum)))
	add(verbs.QPAttrAV, "ah_attr", ahAttrC(a.AH, y))
	add(verbs.QPAttrPathMTU, "path_mtu", c.C(verbs.MTUName(a.PathMTU)))
	add(verbs.QPAttrTimeout, "timeout", dec(uint64(a.Timeout)))
	add(verbs.QPAttrRetryCnt, "retry_cnt", dec(uint64(a.RetryCnt)))
	add(verbs.QPAttrRNRRetry, "rnr_retry", dec(uint64(a.RNRRetry)))
	add(verbs.QPAttrRQPSN, "rq_psn", c.Hex(uint64(a.RQPSN), ""))
	add(verbs.QPAttrMaxQPRdAtomic, "max_rd_atomic", dec(uint64(a.MaxRdAtomic)))
	add(verbs.QPAttrMinRNRTimer, "min_rnr_timer", dec(uint64(a.MinRNRTimer)))
	add(verbs.QPAttrSQPSN, "sq_psn", c.Hex(uint64(a.SQPSN), ""))
	add(verbs.QPAttrMaxDestRdAtomic, "max_dest_rd_atomic", dec(uint64(a.MaxDestRdAtom)))
	add(verbs.QPAttrDestQPN, "dest_qp_num", c.Hex(uint64(a.DestQPNum), ""))
	return c.Either(c.Ref(c.Named("attr", c.Compound("struct ibv_qp_attr", fs...))), c.C("&attr"))
}
