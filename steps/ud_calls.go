package steps

import (
	"fmt"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs"
)

// The ud tour's C statements (see calls.go for how statements are built
// once and shown generic, actual and in the exported program).

func createIDUDCall(name string) c.Stmt {
	return c.Must("rdma_create_id", c.Call("rdma_create_id", c.C("ec"), c.C("&"+name), c.C("NULL"), c.C("RDMA_PS_UDP")))
}

// udQPInitAttr is the ud tour's QP: UD, a few WRs, one SGE.
func udQPInitAttr(cq verbs.CQ) verbs.QPInitAttr {
	return verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq, Type: verbs.QPTUD,
		Cap: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}}
}

func createQPUDCall(a verbs.QPInitAttr) c.Stmt {
	attr := c.Ref(c.Named("init_attr", c.Compound("struct ibv_qp_init_attr", c.F("send_cq", c.C("cq")), c.F("recv_cq", c.C("cq")),
		c.F("qp_type", c.C(verbs.QPTUD.String())),
		c.F("cap", c.Init(c.F("max_send_wr", c.Dec(int64(a.Cap.MaxSendWR), "")), c.F("max_recv_wr", c.Dec(int64(a.Cap.MaxRecvWR), "")),
			c.F("max_send_sge", c.Dec(int64(a.Cap.MaxSendSGE), "")), c.F("max_recv_sge", c.Dec(int64(a.Cap.MaxRecvSGE), "")))))))
	return c.Must("rdma_create_qp", c.Call("rdma_create_qp", c.C("id"), c.C("pd"), attr))
}

func udRegGeneric() string {
	return regMRGeneric("recv_buf", UDRecvSize, verbs.AccessLocalWrite) + "\n" + regMRGeneric("send_buf", UDSendSize, verbs.AccessLocalWrite)
}

// noParam is a struct rdma_conn_param with nothing in it: UD has nothing
// to negotiate.
func noParam() c.Expr {
	return c.Ref(c.Compound("struct rdma_conn_param", c.F("private_data_len", c.C("0"))))
}

func udAcceptCall() c.Stmt {
	return c.Must("rdma_accept", c.Call("rdma_accept", c.C("id"), noParam())).Hinted("SIDR_REP: qp_num, qkey")
}

func udConnectCall() c.Stmt {
	return c.Must("rdma_connect", c.Call("rdma_connect", c.C("id"), noParam())).Hinted("SIDR_REQ")
}

// udReadParam copies event->param.ud before the event is acked.
func udReadParam(p verbs.UDParam) []c.Stmt {
	return []c.Stmt{
		c.S(c.Assign("remote_qpn", c.C("event->param.ud.qp_num"))).Returned(fmt.Sprintf("0x%x", p.QPNum)),
		c.S(c.Assign("remote_qkey", c.C("event->param.ud.qkey"))).Returned(fmt.Sprintf("0x%x", p.QKey)),
		c.S(c.Assign("ah_attr", c.C("event->param.ud.ah_attr"))).Returned(p.AHAttr.String()),
	}
}

func createAHCall() c.Stmt {
	return c.MustPtr("ibv_create_ah", "ah", c.Call("ibv_create_ah", c.C("pd"), c.C("&ah_attr")))
}

// udPostRecvCall is ibv_post_recv of wr into recv_buf, GRH included.
func udPostRecvCall(wr verbs.RecvWR) c.Stmt {
	if len(wr.SGList) == 0 {
		wr.SGList = []verbs.SGE{{Length: UDRecvSize}}
	}
	return postRecvCall(wr, nil).Hinted(fmt.Sprintf("wr_id = %d, %d B = 40 B GRH + %d B", wr.WRID, wr.SGList[0].Length, wr.SGList[0].Length-verbs.GRHLen))
}

// udSendCall is ibv_post_send of a SEND from send_buf on the UD QP:
// wr.ud names the address handle, the server QP and its Q_Key.
func udSendCall(wr verbs.SendWR, length c.Expr) c.Stmt {
	return udSendCallTo(wr, length, udToServer)
}

// udTo names, as C, where a UD SEND goes: the client sends to the QP and
// Q_Key the SIDR reply gave it, the server answers the datagram it
// received (wc.src_qp) with rdma_cm's Q_Key.
type udTo struct{ qpn, qkey, what string }

var (
	udToServer = udTo{"remote_qpn", "remote_qkey", "UD SEND"}
	// The early datagram has its own name, so that the timeline does not
	// take the server's receive for its arrival.
	udToServerEarly = udTo{"remote_qpn", "remote_qkey", "UD SEND (early)"}
	udToSender      = udTo{"wc.src_qp", "RDMA_UDP_QKEY", "UD SEND (reply)"}
)

// udSendCallTo is udSendCall to the destination to names.
func udSendCallTo(wr verbs.SendWR, length c.Expr, to udTo) c.Stmt {
	g := verbs.SGE{}
	if len(wr.SGList) > 0 {
		g = wr.SGList[0]
	}
	w := c.Ref(c.Named("wr", c.Compound("struct ibv_send_wr", c.F("wr_id", c.Dec(int64(wr.WRID), "")),
		c.F("sg_list", sge(g, "send_buf", "send_mr", length)), c.F("num_sge", c.C("1")),
		c.F("opcode", c.C(verbs.WRSend.String())), c.F("send_flags", c.C(verbs.SendSignaled.String())),
		c.F("wr.ud", c.Init(c.F("ah", c.C("ah")), c.F("remote_qpn", c.Hex(uint64(wr.UD.RemoteQPN), to.qpn)),
			c.F("remote_qkey", c.Hex(uint64(wr.UD.RemoteQKey), to.qkey)))))))
	return c.Must("ibv_post_send", c.Call("ibv_post_send", c.C("qp"), w, c.C("&bad_send"))).Hinted(to.what)
}

// udPollSend is the client's poll for a UD SEND's completion: on screen
// ibv_poll_cq; in the exported program poll_ud_send, which keeps the
// server's answer in answer_wc if it comes first.
func udPollSend(what string) c.Stmt {
	return c.S(c.Either(c.Call("ibv_poll_cq", c.C("cq"), c.C("1"), c.C("&wc")),
		c.Call("poll_ud_send", c.C("cq"), c.C("&wc"), c.Str(what))))
}

// createAHFromWCCall is the server's address handle back to the sender
// of the datagram in wc, from the GRH at the start of recv_buf.
func createAHFromWCCall() c.Stmt {
	return c.MustPtr("ibv_create_ah_from_wc", "ah", c.Call("ibv_create_ah_from_wc", c.C("pd"), c.C("&wc"),
		c.C("(struct ibv_grh *)recv_buf"), c.C("id->port_num")))
}

// awaitReplyCall is the client's wait for the server's answer: the
// exported program's await_reply polls for the reply and sends the
// message again every UD_RESEND_MS until it comes.
func awaitReplyCall() c.Stmt {
	return c.S(c.Assign("resent", c.Call("await_reply", c.Dec(WRIDSend, ""), c.C("UD_RESEND_MS"))))
}

// udTeardownCalls frees the ud tour's resources: the address handle
// first, since it holds the PD (the client's to the server, the
// server's back to the client).
func udTeardownCalls() []c.Stmt {
	return []c.Stmt{destroyCall("ibv_destroy_ah", "ah"), destroyQPCall(false), destroyCall("ibv_dereg_mr", "recv_mr").Hinted("and send_mr"),
		destroyCall("ibv_destroy_cq", "cq"), destroyCall("ibv_dealloc_pd", "pd"), destroyCall("rdma_destroy_id", "id"),
		destroyECCall()}
}
