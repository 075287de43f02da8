package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/verbs"
)

// The resource steps: PD, CQ, QP and memory regions.

func stepAllocPD(_ context.Context, s *Session) (Outcome, error) {
	if s.dev == nil {
		return Outcome{}, errors.New("id->verbs is NULL: no device yet")
	}
	pd, err := s.dev.AllocPD()
	if err != nil {
		return Outcome{Call: "pd = ibv_alloc_pd(id->verbs) = NULL"}, err
	}
	s.set(func() { s.pd = pd })
	return Outcome{Call: fmt.Sprintf("pd = ibv_alloc_pd(id->verbs /* %s */) = {handle=%d}", devName(s.dev), pd.Handle()),
		Results: []KV{{"pd->handle", fmt.Sprint(pd.Handle())}}}, nil
}

func stepCreateCQ(_ context.Context, s *Session) (Outcome, error) {
	cq, err := s.dev.CreateCQ(CQDepth)
	if err != nil {
		return Outcome{Call: fmt.Sprintf("cq = ibv_create_cq(id->verbs, %d, NULL, NULL, 0) = NULL", CQDepth)}, err
	}
	s.set(func() { s.cq = cq })
	return Outcome{Call: fmt.Sprintf("cq = ibv_create_cq(id->verbs, %d, NULL, NULL, 0) = {cqe=%d}", CQDepth, cq.CQE()),
		Results: []KV{{"cq->cqe", fmt.Sprint(cq.CQE())}},
		Note:    Text{"One CQ serves both the send and the receive queue, as in the seed.", "和 seed 一样，发送队列和接收队列共用这一个 CQ。"}}, nil
}

// qpInitAttr is the seed's build_qp attributes.
func (s *Session) qpInitAttr() verbs.QPInitAttr {
	return verbs.QPInitAttr{SendCQ: s.cq, RecvCQ: s.cq, Type: verbs.QPTRC,
		Cap: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}}
}

func stepCreateQP(_ context.Context, s *Session) (Outcome, error) {
	attr := s.qpInitAttr()
	call := "rdma_create_qp(id, pd, {send_cq=cq, recv_cq=cq, qp_type=IBV_QPT_RC, cap={max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1}})"
	qp, err := s.id.CreateQP(s.pd, attr)
	if err != nil {
		return Outcome{Call: call + " = -1"}, err
	}
	s.set(func() { s.qp = qp })
	state := s.recordQPState()
	return Outcome{Call: call + " = 0\nqp = id->qp",
		Results: []KV{{"qp_num", fmt.Sprintf("0x%x", qp.Num())}, {"state (ibv_query_qp)", state}},
		Note:    Text{"librdmacm created the QP and already moved it RESET → INIT.", "librdmacm 建好 QP 后已经把它从 RESET 推到了 INIT。"}}, nil
}

// recordQPState queries the QP and appends a new state to the history.
func (s *Session) recordQPState() string {
	s.mu.Lock()
	qp := s.qp
	s.mu.Unlock()
	if qp == nil {
		return "-"
	}
	attr, err := qp.Query()
	if err != nil {
		return "ibv_query_qp failed: " + err.Error()
	}
	s.set(func() {
		if n := len(s.qpHistory); n == 0 || s.qpHistory[n-1] != attr.State {
			s.qpHistory = append(s.qpHistory, attr.State)
		}
	})
	return attr.State.String()
}

func (s *Session) regMR(name string, size int, access verbs.Access, dst *verbs.MR) (Outcome, error) {
	mrName := strings.TrimSuffix(name, "_buf") + "_mr" // the seed's names: mr, doorbell_mr, recv_mr, send_mr
	if name == "buf" {
		mrName = "mr"
	}
	call := fmt.Sprintf("posix_memalign(&%s, 4096, %d); %s = ibv_reg_mr(pd, %s, %d, %s)", name, size, mrName, name, size, access)
	mr, err := s.pd.RegMR(size, access)
	if err != nil {
		return Outcome{Call: call + " = NULL"}, err
	}
	s.set(func() { *dst = mr })
	return Outcome{Call: call + fmt.Sprintf(" = {addr=0x%x, lkey=0x%x, rkey=0x%x}", mr.Addr(), mr.LKey(), mr.RKey()),
		Results: []KV{{name + " addr", fmt.Sprintf("0x%x", mr.Addr())}, {"lkey", fmt.Sprintf("0x%x", mr.LKey())}, {"rkey", fmt.Sprintf("0x%x", mr.RKey())}, {"access", access.Short()}}}, nil
}

const remoteAccess = verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead

func stepRegData(_ context.Context, s *Session) (Outcome, error) {
	access := remoteAccess
	if m := s.mistake(); m.DataAccess != 0 {
		access = m.DataAccess
	}
	out, err := s.regMR("buf", BufSize, access, &s.mrData)
	if access != remoteAccess && err == nil {
		out.Note = Text{"The mistake of this lesson: no IBV_ACCESS_REMOTE_WRITE. Registration succeeds; the client's WRITE will not.",
			"本课故意犯的错：没有 IBV_ACCESS_REMOTE_WRITE。注册会成功，client 的 WRITE 不会。"}
	}
	return out, err
}

func stepRegDoorbell(_ context.Context, s *Session) (Outcome, error) {
	return s.regMR("doorbell", DoorbellSize, remoteAccess, &s.mrDoor)
}

func stepRegMsg(_ context.Context, s *Session) (Outcome, error) {
	recv, err := s.regMR("recv_buf", MsgBufSize, verbs.AccessLocalWrite, &s.mrRecv)
	if err != nil {
		return recv, err
	}
	send, err := s.regMR("send_buf", MsgBufSize, verbs.AccessLocalWrite, &s.mrSend)
	out := Outcome{Call: recv.Call + "\n" + send.Call, Results: append(recv.Results, send.Results...),
		Note: Text{"LOCAL_WRITE only: these buffers are never touched by the peer's one-sided operations.", "只有 LOCAL_WRITE：对端的单边操作从不碰这两块 buffer。"}}
	return out, err
}
