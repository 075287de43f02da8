package steps

import (
	"fmt"
	"strings"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
)

// Edits the client makes after its hello left (in the form, on a step
// after rdma_connect) reach the server in the bytes after the SEND's
// "RDMA_WRITE_DONE" and its NUL (privdata/noticeedits.go): the server's
// screen names them on the step where the notification, and with it the
// WRITE's consequence, arrives. The doorbell and WRITE_WITH_IMM modes
// have no message with room for them: there, as when the WRITE fails and
// no SEND follows, the server sees only what the edit did.

// helloSteps are the steps whose call carries this side's hello.
var helloSteps = []StepID{IDConnect, IDConnectManual, IDAccept, IDAcceptManual}

// helloLeft says this side's hello has gone. Called with mu held.
func (s *Session) helloLeft() bool {
	for _, id := range helloSteps {
		if i := indexOf(s.tour, id); i >= 0 && i < s.next {
			return true
		}
	}
	return false
}

// noteLateEdit remembers e, made after the hello left, for the SEND.
// Called with mu held.
func (s *Session) noteLateEdit(e Edit) {
	if s.helloLeft() {
		s.lateEdits = append(s.lateEdits.without(e.Step, e.Field), e)
	}
}

// lateEditList is the late edits still in force, as the SEND carries them.
func (s *Session) lateEditList() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.lateEdits {
		if cur, ok := s.edits.Find(s.cfg.Role, e.Step, e.Field); ok && cur.Value.Raw == e.Value.Raw {
			out = append(out, e.Key()+"="+e.Value.Raw)
		}
	}
	return out
}

// doneNotice is the SEND's bytes, "RDMA_WRITE_DONE" and its NUL with any
// late edits after it, and the C that puts them in send_buf.
func (s *Session) doneNotice() ([]byte, []c.Stmt, c.Expr) {
	done := append([]byte(DoneText), 0)
	fill := []c.Stmt{c.S(c.Call("snprintf", c.C("send_buf"), c.Dec(MsgBufSize, ""), c.Str("%s"), c.Str(DoneText)))}
	msg := privdata.AppendNoticeEdits(done, s.lateEditList(), MsgBufSize)
	length := c.Dec(int64(len(done)), "strlen(send_buf) + 1")
	if tail := msg[len(done):]; len(tail) > 0 {
		fill = append(fill, c.S(c.Call("memcpy", c.C(fmt.Sprintf("send_buf + %d", len(done))), c.Str(string(tail)), c.Dec(int64(len(tail)), ""))))
		length = c.Dec(int64(len(msg)), fmt.Sprintf("strlen(send_buf) + 1 + %d", len(tail)))
	}
	return msg, fill, length
}

// peerLateEdits reads the late edits after the notice in the server's
// RECV buffer b, adds them to what the peer announced, and says so.
func (s *Session) peerLateEdits(b []byte) text.Text {
	pe, err := privdata.ParseNoticeEdits(b)
	if err != nil || len(pe.List) == 0 && pe.Omitted == 0 {
		return text.Text{}
	}
	var list []string
	for _, e := range pe.List {
		list = append(list, e.String()) // escaped: bytes from the peer
	}
	s.set(func() {
		s.peerTour.Edits = append(s.peerTour.Edits, list...)
		s.peerTour.EditsOmitted += pe.Omitted
	})
	if pe.Omitted > 0 {
		list = append(list, fmt.Sprintf("+%d", pe.Omitted))
	}
	peer := s.cfg.Role.Peer().String()
	return text.Text{EN: fmt.Sprintf("After it connected, the %s changed %s (said in the SEND, after RDMA_WRITE_DONE and its NUL): what landed is what those edits made.", peer, strings.Join(list, ", ")),
		ZH: fmt.Sprintf("%s 在连接之后改了 %s（写在 SEND 里 RDMA_WRITE_DONE 和它的 NUL 之后）：落进来的就是这些修改的结果。", peer, strings.Join(list, ", "))}
}
