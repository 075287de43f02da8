package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/text"
)

// Moving a step: STEP.run=before:connect runs the client's WRITE before
// it connects, the experiment "what if I post before the QP can send?".
// The step keeps its call; it runs where the edit puts it, with what the
// session has by then (no remote_info yet: address and rkey 0), so it
// ends the tour with the device's real answer (ibv_post_send: EINVAL, the
// QP is in INIT). The post-before-connect lesson is not a preset of it:
// that lesson adds a second, empty, unsignaled WRITE before connecting
// and lets the tour go on, which moving the one WRITE cannot do.

// The values of a step's "run" field.
const (
	runAsTour        = 0 // where the tour has it
	runSkip          = 1 // left out (post-recv.run=skip)
	runBeforeConnect = 2 // moved before rdma_connect
)

// runFieldOfWrite is the "run" field of the client's data WRITE on step.
func runFieldOfWrite(step StepID) EditField {
	return EditField{Step: step, Name: "run", CName: "(the call itself)", Kind: EditEnum,
		Choices: []EditChoice{{"RUN", runAsTour}, {"BEFORE:CONNECT", runBeforeConnect}},
		Explain: text.Text{EN: "Where in the tour the WRITE is posted: in its place, or before rdma_connect (the QP not yet able to send, no remote_info yet). Decided when the tour starts.",
			ZH: "WRITE 在教程的哪里 post：原位，或 rdma_connect 之前（QP 还不能发送，也还没有 remote_info）。在教程开始时决定。"},
		fallback: func(*Session) string { return "run" }}
}

// moveSteps puts each step edited run=before:connect just before the
// connect step, waiting for what connect waits for.
func moveSteps(edits Edits, role Role, tour []Step) []Step {
	out := tour
	for _, st := range tour {
		e, ok := edits.Find(role, st.ID, "run")
		to := indexOf(out, IDConnect)
		if !ok || e.Value.Num != runBeforeConnect || to < 0 || indexOf(out, st.ID) < to {
			continue
		}
		moved := st
		moved.After = out[to].After
		rest := append([]Step(nil), out[:indexOf(out, st.ID)]...)
		rest = append(rest, out[indexOf(out, st.ID)+1:]...)
		out = append(append(append([]Step(nil), rest[:to]...), moved), rest[to:]...)
	}
	return out
}

// moveTargetMissing refuses a move whose target this side's tour lacks
// (the manual track connects with connect-manual, after the WRITE's QP
// is already brought up by hand).
func moveTargetMissing(edits Edits, role Role, tour []Step) error {
	for _, e := range edits {
		if e.Field != "run" || e.Value.Num != runBeforeConnect || !(e.AnySide || e.Side == role) || indexOf(tour, e.Step) < 0 {
			continue
		}
		if indexOf(tour, IDConnect) < 0 {
			return &EditError{Input: e.String(), Reason: text.Text{
				EN: fmt.Sprintf("the %s's tour has no step %s to run it before (the manual track connects with %s)", role, IDConnect, IDConnectManual),
				ZH: fmt.Sprintf("%s 的教程里没有步骤 %s 可以排在它前面（manual 路线用 %s 建立连接）", role, IDConnect, IDConnectManual)}}
		}
	}
	return nil
}
