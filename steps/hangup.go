package steps

import (
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
)

// Who hangs up first at the end of a tour, and how long the server waits
// for the client to.

// serverHangupGrace is how long the server's disconnect gives the
// client's DREQ to arrive. The tour's plan has the client hang up first;
// two sides that hang up within a round trip of each other collide (a
// DREQ each way, then a DREP each way), and which of the two exchanges a
// run shows would depend on scheduling: in 10 --auto runs of the write
// tour on the sim, 2 collided (11 packets in the capture instead of 9).
// Waiting a second makes it the plan's every time; a person at the server
// who presses Enter first still hangs up first, a second later.
const serverHangupGrace = time.Second

// ServerHangupWaitMS is the exported server's wait_for_hangup bound, in
// milliseconds: the same second rdmatour's own server gives the client.
const ServerHangupWaitMS = int(serverHangupGrace / time.Millisecond)

func (s *Session) hangupGrace() time.Duration {
	if s.cfg.Role == Server {
		return serverHangupGrace
	}
	return time.Millisecond
}

// hangupWait is the exported server's wait for the client's DREQ before
// its own rdma_disconnect. A server that hangs up as soon as the SEND's
// RECV completion is polled may move its QP to ERR between rxe posting
// that completion and sending the SEND's ACK; rxe then never sends the
// ACK (rxe_resp.c do_complete returns to RESPST_CHK_RESOURCE on a QP in
// ERR), and the client's SEND ends in transport retry counter exceeded.
// The client disconnects only once its SEND is acknowledged, so waiting
// for its DREQ first closes that window. The screen shows what this run
// did instead (ScreenOnly get_event above); the program cannot know.
func (s *Session) hangupWait(takenEarlier bool) []c.Stmt {
	if s.cfg.Role != Server || takenEarlier {
		return nil
	}
	return []c.Stmt{c.S(c.Call("wait_for_hangup", c.C("ec"), c.C("HANGUP_WAIT_MS"))).Only(c.ExportOnly)}
}
