package steps

import (
	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs"
)

// The C a step shows before it runs, when the learner (or a lesson's
// preset) edited it: the call built as the step builds it, from the same
// helpers and the session's state so far, rendered Generic. A struct
// holding an edited value shows its fields there (cprint.Named), the
// edit marked `/* you: was … */`, instead of &wr. Building it makes no
// call and changes nothing.

// previewCalls builds, per editable step, the statements the step will
// run; nil when what it needs is not there yet.
var previewCalls = map[StepID]func(*Session) []c.Stmt{
	IDCreateCQ: func(s *Session) []c.Stmt { _, call := s.cqCall(); return []c.Stmt{call} },
	IDCreateQP: func(s *Session) []c.Stmt {
		a, y := s.editedQPInitAttr(IDCreateQP)
		return []c.Stmt{createQPCall(a, y)}
	},
	IDCreateQPManual: func(s *Session) []c.Stmt {
		a, y := s.editedQPInitAttr(IDCreateQPManual)
		return []c.Stmt{createQPManualCall(a, y)}
	},
	IDRegMRData: func(s *Session) []c.Stmt {
		base, _ := s.tourDataAccess()
		access, y := s.editedDataAccess(base)
		length := s.dataMRLength(y)
		_, _, reg := regMRCallsOf("buf", max(BufSize, length), length, access, y)
		return []c.Stmt{reg}
	},
	IDPostRecv: func(s *Session) []c.Stmt {
		if s.mrRecv == nil {
			return nil
		}
		_, call := s.recvCall()
		return []c.Stmt{call}
	},
	IDAccept:        func(s *Session) []c.Stmt { return s.connPreview(IDAccept, false, false) },
	IDAcceptManual:  func(s *Session) []c.Stmt { return s.connPreview(IDAcceptManual, false, true) },
	IDConnect:       func(s *Session) []c.Stmt { return s.connPreview(IDConnect, true, false) },
	IDConnectManual: func(s *Session) []c.Stmt { return s.connPreview(IDConnectManual, true, true) },
	IDPostWrite:     func(s *Session) []c.Stmt { return s.writePreview(false) },
	IDPostWriteImm:  func(s *Session) []c.Stmt { return s.writePreview(true) },
	IDModifyInit:    func(s *Session) []c.Stmt { return s.modifyPreview(verbs.QPSInit) },
	IDModifyRTR:     func(s *Session) []c.Stmt { return s.modifyPreview(verbs.QPSRTR) },
	IDModifyRTS:     func(s *Session) []c.Stmt { return s.modifyPreview(verbs.QPSRTS) },
}

// refreshPreview builds the C of this side's next step when it is
// edited (and forgets it when it is not). Called with runMu held and mu
// not: the builders read the resources the steps made.
func (s *Session) refreshPreview() {
	s.mu.Lock()
	next := s.next
	s.mu.Unlock()
	s.refreshPreviewAt(next)
}

// refreshPreviewAt is refreshPreview for step i (the one about to be
// next, while RunNext finishes the step before it).
func (s *Session) refreshPreviewAt(i int) {
	s.mu.Lock()
	if i >= len(s.tour) || s.closed {
		s.mu.Unlock()
		return
	}
	id := s.tour[i].ID
	edited := false
	for _, e := range s.edits {
		edited = edited || e.Step == id
	}
	s.mu.Unlock()
	call := ""
	if build := previewCalls[id]; edited && build != nil {
		if stmts := build(s); stmts != nil {
			call = generic(stmts...)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.previews == nil {
		s.previews = map[StepID]string{}
	}
	s.previews[id] = call
}

// refreshPreviewIfIdle is refreshPreview from outside the step runner
// (an edit made in the form): a running step refreshes it when it ends.
func (s *Session) refreshPreviewIfIdle() {
	if s.runMu.TryLock() {
		defer s.runMu.Unlock()
		s.refreshPreview()
	}
}

// shownCall is what step st shows before it runs: its edited C, or the
// tour's generic form. Called with mu held.
func (s *Session) shownCall(st Step) string {
	if p := s.previews[st.ID]; p != "" {
		return p
	}
	return st.Call
}

func (s *Session) connPreview(step StepID, connect, ownQP bool) []c.Stmt {
	if ownQP && s.qp == nil {
		return nil
	}
	if connect {
		p := s.connectParam(ownQP)
		return []c.Stmt{connectCall(p, ownQP, s.editConnParam(step, &p))}
	}
	p := s.acceptParam(ownQP)
	return []c.Stmt{acceptCall(p, ownQP, s.editConnParam(step, &p))}
}

func (s *Session) writePreview(withImm bool) []c.Stmt {
	if s.mrData == nil {
		return nil
	}
	w := s.buildWrite(writeStep(withImm))
	return []c.Stmt{w.call}
}

func (s *Session) modifyPreview(st verbs.QPState) []c.Stmt {
	if s.id == nil {
		return nil
	}
	attr, mask, err := s.id.InitQPAttr(st)
	if err != nil {
		return nil
	}
	y := s.editQPAttr(modifyStepID(st), &attr, &mask)
	set, get, call := modifyCalls(st, attr, mask, y)
	return []c.Stmt{set, get, call}
}

// cqCall is create-cq's depth and call, with its edit.
func (s *Session) cqCall() (int, c.Stmt) {
	y := youWas{}
	cqe := int(s.editNum(IDCreateCQ, "cqe", "cqe", CQDepth, y))
	y.replace("cqe", c.Dec(CQDepth, "CQ_DEPTH"))
	if s.cc != nil { // --completion event: the CQ is made on the channel
		return cqe, createCQOnChannelCall(cqe)
	}
	return cqe, createCQCall(cqe, y)
}

// editedDataAccess is the data MR's access with reg-mr-data's edit.
func (s *Session) editedDataAccess(base verbs.Access) (verbs.Access, youWas) {
	y := youWas{}
	return verbs.Access(s.editFlags(IDRegMRData, "access", "access", uint64(base), base.String(), y)), y
}

// dataMRLength is the data MR's length with reg-mr-data's edit (the
// buffer's size, BUF_SIZE, unless edited), marked in y.
func (s *Session) dataMRLength(y youWas) int {
	n := int(s.editNum(IDRegMRData, "length", "length", BufSize, y))
	y.replace("length", c.Dec(BufSize, "BUF_SIZE"))
	return n
}

// dataLen is how much of the data buffer the data MR covers: BufSize,
// or less when the learner registered less (reg-mr-data.length).
func (s *Session) dataLen() int { return min(BufSize, s.mrData.Len()) }

// recvCall is the server's RECV with post-recv's edits.
func (s *Session) recvCall() (verbs.RecvWR, c.Stmt) {
	wr, y := seedRecvWR(s.mrRecv), youWas{}
	wr.WRID = uint64(s.editNum(IDPostRecv, "wr_id", "wr_id", int64(wr.WRID), y))
	wr.SGList[0].Length = uint32(s.editNum(IDPostRecv, "length", "length", int64(wr.SGList[0].Length), y))
	return wr, postRecvCall(wr, y)
}

// acceptParam and connectParam are rdma_conn_param's numbers as the tour
// sets them (the private data is the step's); ownQP: the manual track's.
func (s *Session) acceptParam(ownQP bool) verbs.ConnParam {
	p := verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1, RNRRetryCount: s.cfg.RNRRetry}
	if ownQP {
		p.QPNum = s.qp.Num()
	}
	return p
}

func (s *Session) connectParam(ownQP bool) verbs.ConnParam {
	if ownQP {
		return verbs.ConnParam{PrivateData: s.myHello(), ResponderResources: 1, InitiatorDepth: 1, RNRRetryCount: s.cfg.RNRRetry, QPNum: s.qp.Num()}
	}
	return verbs.ConnParam{PrivateData: s.myHello(), ResponderResources: 1, InitiatorDepth: s.initiatorDepth(), RNRRetryCount: s.cfg.RNRRetry}
}
