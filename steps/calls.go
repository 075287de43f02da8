package steps

import (
	"fmt"
	"net/netip"
	"strings"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs"
)

// Each call's C statement, built in one place from the call's arguments.
// A step builds it with the values it is about to use and shows it
// Actual once the call returned; the tour builds the same statement with
// zero values and shows it Generic before the step runs (generic.go),
// where the values are variable names. So no C is typed twice.

func createEventChannelCall() c.Stmt {
	return c.MustPtr("rdma_create_event_channel", "ec", c.Call("rdma_create_event_channel"))
}

// createIDCall is rdma_create_id into the variable name (listener, id).
func createIDCall(name string) c.Stmt {
	return c.Must("rdma_create_id", c.Call("rdma_create_id", c.C("ec"), c.C("&"+name), c.C("NULL"), c.C("RDMA_PS_TCP")))
}

func bindAddrCall(bind netip.AddrPort) c.Stmt {
	return c.Must("rdma_bind_addr", c.Call("rdma_bind_addr", c.C("listener"), sockaddr(bind, "addr->ai_addr")))
}

func listenCall() c.Stmt {
	return c.Must("rdma_listen", c.Call("rdma_listen", c.C("listener"), c.C("1")))
}

// resolveAddrCall is rdma_resolve_addr from src (invalid: none) to server.
func resolveAddrCall(src netip.Addr, server netip.AddrPort) c.Stmt {
	const srcVar = "src ? src->ai_addr : NULL"
	srcC := c.Value("NULL", srcVar)
	if src.IsValid() {
		srcC = c.Value(sockaddr(netip.AddrPortFrom(src, 0), "").In(c.Actual), srcVar)
	}
	return c.Must("rdma_resolve_addr", c.Call("rdma_resolve_addr", c.C("id"), srcC, sockaddr(server, "dst->ai_addr"),
		c.Dec(ResolveTimeout.Milliseconds(), "TIMEOUT_MS")))
}

func resolveRouteCall() c.Stmt {
	return c.Must("rdma_resolve_route", c.Call("rdma_resolve_route", c.C("id"), c.Dec(ResolveTimeout.Milliseconds(), "TIMEOUT_MS")))
}

// acceptCall is rdma_accept with p, remote_info (info) as private data;
// ownQP: the manual track's QP is named in p.QPNum.
// y marks the fields of param the learner edited.
func acceptCall(p verbs.ConnParam, ownQP bool, y youWas) c.Stmt {
	param, hint := connParamC(p, c.C("&info"), true, ownQP, y)
	return c.Must("rdma_accept", c.Call("rdma_accept", c.C("id"), param)).Hinted(hint)
}

func connectCall(p verbs.ConnParam, ownQP bool, y youWas) c.Stmt {
	param, hint := connParamC(p, c.Expr{}, false, ownQP, y)
	return c.Must("rdma_connect", c.Call("rdma_connect", c.C("id"), param)).Hinted(hint)
}

func establishCall() c.Stmt {
	return c.Must("rdma_establish", c.Call("rdma_establish", c.C("id")))
}

// disconnectCall is rdma_disconnect. The program does not check it, as
// the seed: the peer may have hung up first, and teardown follows anyway.
func disconnectCall() c.Stmt { return c.S(c.Call("rdma_disconnect", c.C("id"))) }

func allocPDCall() c.Stmt {
	return c.MustPtr("ibv_alloc_pd", "pd", c.Call("ibv_alloc_pd", c.C("id->verbs")))
}

// createCQCall is ibv_create_cq of cqe entries (CQ_DEPTH unless edited).
func createCQCall(cqe int, y youWas) c.Stmt {
	depth := c.Dec(CQDepth, "CQ_DEPTH")
	if cqe != CQDepth {
		depth = c.Dec(int64(cqe), "")
	}
	return c.MustPtr("ibv_create_cq", "cq", c.Call("ibv_create_cq", c.C("id->verbs"), y.on("cqe", depth), c.C("NULL"), c.C("NULL"), c.C("0")))
}

// seedQPInitAttr is the seed's build_qp attributes, on cq.
func seedQPInitAttr(cq verbs.CQ) verbs.QPInitAttr {
	return verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq, Type: verbs.QPTRC,
		Cap: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}}
}

func createQPCall(a verbs.QPInitAttr, y youWas) c.Stmt {
	return c.Must("rdma_create_qp", c.Call("rdma_create_qp", c.C("id"), c.C("pd"), qpInitAttrC(a, y)))
}

func createQPManualCall(a verbs.QPInitAttr, y youWas) c.Stmt {
	return c.MustPtr("ibv_create_qp", "qp", c.Call("ibv_create_qp", c.C("pd"), qpInitAttrC(a, y)))
}

// mrVar is the seed's name of the MR of buffer buf: mr, doorbell_mr,
// recv_mr, send_mr.
func mrVar(buf string) string {
	if buf == "buf" {
		return "mr"
	}
	return strings.TrimSuffix(buf, "_buf") + "_mr"
}

// regMRCalls allocate and register buf: PD.RegMR allocates page-aligned
// memory and registers it; in C, posix_memalign, memset and ibv_reg_mr.
// y marks the access flags (and the length) the learner edited.
func regMRCalls(buf string, size int, access verbs.Access, y youWas) (alloc, zero, reg c.Stmt) {
	return regMRCallsOf(buf, size, size, access, y)
}

// regMRCallsOf is regMRCalls of an MR of length bytes over a buffer of
// size (at least as long: the program's buffer stays whole when the
// learner registers less of it).
func regMRCallsOf(buf string, size, length int, access verbs.Access, y youWas) (alloc, zero, reg c.Stmt) {
	alloc = c.Must("posix_memalign", c.Call("posix_memalign", c.C("(void **)&"+buf), c.C("4096"), c.Dec(int64(size), "")))
	zero = c.S(c.Call("memset", c.C(buf), c.C("0"), c.Dec(int64(size), ""))).Only(c.ExportOnly)
	reg = c.MustPtr("ibv_reg_mr "+buf, mrVar(buf), c.Call("ibv_reg_mr", c.C("pd"), c.C(buf), y.on("length", c.Dec(int64(length), "")), y.on("access", c.C(access.String()))))
	return alloc, zero, reg
}

// postRecvCall is ibv_post_recv of wr into recv_buf.
// y marks the fields the learner edited.
func postRecvCall(wr verbs.RecvWR, y youWas) c.Stmt {
	g := verbs.SGE{Length: MsgBufSize}
	if len(wr.SGList) > 0 {
		g = wr.SGList[0]
	}
	recvWR := c.Ref(c.Named("recv_wr", c.Compound("struct ibv_recv_wr",
		c.F("wr_id", y.on("wr_id", c.Dec(int64(wr.WRID), ""))), c.F("sg_list", sge(g, "recv_buf", "recv_mr", y.on("length", c.Dec(int64(g.Length), "")))),
		c.F("num_sge", c.C("1")))))
	return c.Must("ibv_post_recv", c.Call("ibv_post_recv", c.C("qp"), recvWR, c.C("&bad_recv"))).
		Hinted(fmt.Sprintf("wr_id = %d, %d B", wr.WRID, g.Length))
}

// postSendCall is ibv_post_send of wr: its one SGE in local (registered
// as mrVar) with length, to remote for the RDMA opcodes.
func postSendCall(wr verbs.SendWR, local string, length c.Expr, remote Target, what string) c.Stmt {
	if len(wr.SGList) == 0 && remote.you == nil {
		wr.SGList = []verbs.SGE{{}} // the form before the run shows one
	}
	return c.Must(what, c.Call("ibv_post_send", c.C("qp"), sendWR(wr, local, mrVar(local), length, remote), c.C("&bad_send"))).
		Hinted(wr.Opcode.String())
}

// doorbellUp is the server's test of the doorbell flag.
func doorbellUp() c.Expr {
	return c.Op(c.Call("be64toh", c.C("*doorbell")), "==", c.Dec(DoorbellValue, "DOORBELL_VALUE"))
}

// waitPollCall is the server's poll while it waits for the notification;
// the doorbell is the other way the wait ends.
func waitPollCall() c.Stmt {
	return c.S(c.Call("ibv_poll_cq", c.C("cq"), c.C("1"), c.C("&wc"))).Only(c.ScreenOnly).
		Hinted("or " + doorbellUp().In(c.Generic))
}

// modifyCalls are the manual track's transition to st: the attributes
// rdma_init_qp_attr returns (attr, mask), applied with ibv_modify_qp.
// y marks the attributes and mask bits the learner edited.
func modifyCalls(st verbs.QPState, attr verbs.QPAttr, mask verbs.QPAttrMask, y youWas) (set, get, modify c.Stmt) {
	set = c.S(c.Assign("attr.qp_state", c.C(st.CName())))
	get = c.Must("rdma_init_qp_attr", c.Call("rdma_init_qp_attr", c.C("id"), c.C("&attr"), c.C("&mask")))
	modify = c.Must("ibv_modify_qp", c.Call("ibv_modify_qp", c.C("qp"), qpAttrC(attr, mask, y), y.on("mask", c.Value(mask.String(), "mask"))))
	return set, get, modify
}

// toErrCall moves the manual track's QP to ERR.
func toErrCall() c.Stmt {
	return c.Must("ibv_modify_qp to ERR", c.Call("ibv_modify_qp", c.C("qp"),
		c.Ref(c.Compound("struct ibv_qp_attr", c.F("qp_state", c.C(verbs.QPSErr.CName())))), c.C(verbs.QPAttrState.String())))
}

// destroyCall is fn(arg), checked like the seed checks it.
func destroyCall(fn, arg string) c.Stmt { return c.Must(fn, c.Call(fn, c.C(arg))) }

// destroyQPCall frees the QP: the manual track's own, or the CM's.
func destroyQPCall(manual bool) c.Stmt {
	if manual {
		return destroyCall("ibv_destroy_qp", "qp")
	}
	return c.S(c.Call("rdma_destroy_qp", c.C("id")))
}

// teardownCalls is the teardown before it runs: children before parents,
// the data buffer's MR standing for all four.
func teardownCalls(manual bool) []c.Stmt {
	others := mrVar("doorbell") + ", " + mrVar("recv_buf") + ", " + mrVar("send_buf")
	return []c.Stmt{destroyQPCall(manual),
		destroyCall("ibv_dereg_mr", mrVar("buf")).Hinted("and " + others),
		destroyCall("ibv_destroy_cq", "cq"), destroyCall("ibv_dealloc_pd", "pd"), destroyCall("rdma_destroy_id", "id"),
		destroyECCall()}
}

// destroyECCall frees the event channel; it returns nothing.
func destroyECCall() c.Stmt { return c.S(c.Call("rdma_destroy_event_channel", c.C("ec"))) }
