package steps

import (
	"context"
	"errors"
	"fmt"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The resource steps: PD, CQ, QP and memory regions.

func stepAllocPD(_ context.Context, s *Session) (Outcome, error) {
	if s.dev == nil {
		return Outcome{}, errors.New("id->verbs is NULL: no device yet")
	}
	call := allocPDCall()
	pd, err := s.dev.AllocPD()
	if err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.set(func() { s.pd = pd })
	return withC(Outcome{Results: []KV{result(resPdHandle, fmt.Sprint(pd.Handle()))}},
		call.Returned(fmt.Sprintf("{ .handle = %d } on %s", pd.Handle(), devName(s.dev)))), nil
}

func stepCreateCQ(_ context.Context, s *Session) (Outcome, error) {
	cqe, call := s.cqCall()
	var cq verbs.CQ
	var err error
	if s.cc != nil {
		cq, err = s.cc.CreateCQ(cqe)
	} else {
		cq, err = s.dev.CreateCQ(cqe)
	}
	if err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.set(func() { s.cq = cq })
	return withC(Outcome{
		Results: []KV{result(resCqCqe, fmt.Sprint(cq.CQE()))},
		Note:    text.Text{EN: "One CQ serves both the send and the receive queue, as in the seed.", ZH: "和 seed 一样，发送队列和接收队列共用这一个 CQ。"}},
		call.Returned(fmt.Sprintf("{ .cqe = %d }", cq.CQE()))), nil
}

func stepCreateQP(_ context.Context, s *Session) (Outcome, error) {
	attr, y := s.editedQPInitAttr(IDCreateQP)
	call := createQPCall(attr, y)
	qp, err := s.id.CreateQP(s.pd, attr)
	if err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.set(func() { s.qp = qp })
	state := s.recordQPState()
	note := text.Text{EN: "librdmacm created the QP and already moved it RESET → INIT.", ZH: "librdmacm 建好 QP 后已经把它从 RESET 推到了 INIT。"}
	if s.srq != nil {
		note = joinNotes(note, srqNote)
	}
	out := Outcome{
		Results: []KV{result(resQpNum, fmt.Sprintf("0x%x", qp.Num())), result(resStateIbvQueryQp, state)},
		Note:    note}
	err = s.impairWire(qp, &out)
	return withC(out, call.Returned("0"), c.S(c.Assign("qp", c.C("id->qp"))).Returned(fmt.Sprintf("{ .qp_num = 0x%x }", qp.Num()))), err
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
	return s.regMRWith(name, size, access, dst, nil)
}

// regMRWith is regMR with the learner's edits marked (y).
func (s *Session) regMRWith(name string, size int, access verbs.Access, dst *verbs.MR, y youWas) (Outcome, error) {
	return s.regMRLen(name, size, size, access, dst, y)
}

// regMRLen is regMRWith of length bytes (the learner's reg-mr-data
// length) of a buffer of size.
func (s *Session) regMRLen(name string, size, length int, access verbs.Access, dst *verbs.MR, y youWas) (Outcome, error) {
	alloc, zero, reg := regMRCallsOf(name, size, length, access, y)
	mr, err := s.pd.RegMR(length, access)
	if err != nil {
		return withC(Outcome{}, alloc, zero, failed(reg, err)), err
	}
	s.set(func() { *dst = mr })
	return withC(Outcome{
		Results: []KV{result(addrName(name), fmt.Sprintf("0x%x", mr.Addr())), result(resLkey, fmt.Sprintf("0x%x", mr.LKey())), result(resRkey, fmt.Sprintf("0x%x", mr.RKey())), result(resAccess, access.Short())}},
		alloc.Returned(fmt.Sprintf("0: %s = 0x%x", name, mr.Addr())), zero,
		reg.Returned(fmt.Sprintf("{ .addr = 0x%x, .lkey = 0x%x, .rkey = 0x%x }", mr.Addr(), mr.LKey(), mr.RKey()))), nil
}

// tourDataAccess is the data MR's access before any edit, and the note
// that says why when it is not the tour's.
func (s *Session) tourDataAccess() (verbs.Access, text.Text) {
	tour, _ := TourOf(s.cfg.Tour)
	if s.sharedCounter != nil {
		// The attendee's QP sits in the room's shared PD with the counter
		// (a responder checks that an rkey's MR is in the QP's PD), so
		// this buffer must not carry a remote right there: any attendee's
		// QP could use it.
		return verbs.AccessLocalWrite, sharedPDBufferNote
	}
	return s.iwarpSinkAccess(tour.dataAccess(s.cfg.Role))
}

func stepRegData(_ context.Context, s *Session) (Outcome, error) {
	tour, _ := TourOf(s.cfg.Tour)
	access, note := s.tourDataAccess()
	access, y := s.editedDataAccess(access)
	if _, edited := y["access"]; edited && s.cfg.Lesson != nil && tour.DataAccess&^access != 0 {
		note = missingAccessNote(s.cfg.Tour, access) // a lesson's preset took a right away
	}
	length := s.dataMRLength(y)
	out, err := s.regMRLen("buf", max(BufSize, length), length, access, &s.mrData, y)
	if err == nil && note.EN != "" {
		out.Note = note
	}
	return out, err
}

// sharedPDBufferNote is reg-mr-data's note in an atomic room.
var sharedPDBufferNote = text.Text{EN: "This is an atomic workshop room: this connection's QP lives in the room's shared PD, next to the shared counter, so this buffer gets LOCAL_WRITE only. The counter is the one MR in that PD a peer can reach.",
	ZH: "这是原子操作的 workshop 教室：这条连接的 QP 放在教室共享的 PD 里，和共享计数器在一起，所以这块 buffer 只给 LOCAL_WRITE。那个 PD 里对端能碰到的 MR 只有计数器。"}

func stepRegDoorbell(_ context.Context, s *Session) (Outcome, error) {
	tour, _ := TourOf(s.cfg.Tour)
	return s.regMR("doorbell", DoorbellSize, tour.doorbellAccess(s.cfg.Role), &s.mrDoor)
}

func stepRegMsg(_ context.Context, s *Session) (Outcome, error) {
	recv, err := s.regMR("recv_buf", MsgBufSize, verbs.AccessLocalWrite, &s.mrRecv)
	if err != nil {
		return recv, err
	}
	send, err := s.regMR("send_buf", MsgBufSize, verbs.AccessLocalWrite, &s.mrSend)
	out := withC(Outcome{Results: append(recv.Results, send.Results...),
		Note: text.Text{EN: "LOCAL_WRITE only: these buffers are never touched by the peer's one-sided operations.", ZH: "只有 LOCAL_WRITE：对端的单边操作从不碰这两块 buffer。"}},
		append(append([]c.Stmt(nil), recv.C...), send.C...)...)
	return out, err
}
