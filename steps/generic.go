package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
)

// The generic C of each step, shown before it runs: valid C over the
// variables of CDecls, with the tour's constants (CQDepth, BufSize, ...)
// where the real call uses them.

func regMRGeneric(mr, buf string, size int, a verbs.Access) string {
	return fmt.Sprintf("%s = ibv_reg_mr(pd, %s, %d, %s);", mr, buf, size, a)
}

func createCQGeneric() string {
	return fmt.Sprintf("cq = ibv_create_cq(id->verbs, %d, NULL, NULL, 0);", CQDepth)
}

func regMsgGeneric() string {
	return regMRGeneric("recv_mr", "recv_buf", MsgBufSize, verbs.AccessLocalWrite) + "\n" +
		regMRGeneric("send_mr", "send_buf", MsgBufSize, verbs.AccessLocalWrite)
}

func postRecvGeneric() string {
	return fmt.Sprintf("ibv_post_recv(qp, &recv_wr, &bad_recv); /* wr_id = %d, %d B */", WRIDRecv, MsgBufSize)
}

func postSendGeneric(op verbs.WROpcode, note string) string {
	return fmt.Sprintf("ibv_post_send(qp, &wr, &bad_send); /* %s%s */", op, note)
}

func waitEventGeneric(ev verbs.CMEventType) string {
	return "rdma_get_cm_event(ec, &event); /* " + ev.String() + " */"
}

func resolveGeneric(call string, ev verbs.CMEventType) string {
	return fmt.Sprintf(call, resolveTimeout.Milliseconds()) + "\n" + waitEventGeneric(ev)
}

func waitNotifyGeneric() string {
	return fmt.Sprintf("ibv_poll_cq(cq, 1, &wc); /* or be64toh(*doorbell) == %d */", DoorbellValue)
}

func teardownGeneric(qp string) string {
	return qp + "\nibv_dereg_mr(mr); /* and doorbell_mr, recv_mr, send_mr */\nibv_destroy_cq(cq);\nibv_dealloc_pd(pd);\nrdma_destroy_id(id);\nrdma_destroy_event_channel(ec);"
}
