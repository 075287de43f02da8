package steps

import (
	"net/netip"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs"
)

// The C each step shows before it runs: the statements of calls.go, which
// the step itself builds with the real values, built here with none and
// rendered Generic (variables and the tour's constants where the values
// will be). The gcc test compiles these as it compiles the rest.

// generic renders stmts as the screen shows them before the step runs.
func generic(stmts ...c.Stmt) string { return c.Lines(stmts, c.Generic) }

// regMRGeneric is the registration of buf; the allocation before it is
// left to the step's result.
func regMRGeneric(buf string, size int, a verbs.Access) string {
	_, _, reg := regMRCalls(buf, size, a, nil)
	return generic(reg)
}

func regMsgGeneric() string {
	return regMRGeneric("recv_buf", MsgBufSize, verbs.AccessLocalWrite) + "\n" + regMRGeneric("send_buf", MsgBufSize, verbs.AccessLocalWrite)
}

func postRecvGeneric() string { return generic(postRecvCall(verbs.RecvWR{WRID: WRIDRecv}, nil)) }

// postSendGeneric is ibv_post_send of an op WR from local; note adds to
// the comment that names the opcode.
func postSendGeneric(op verbs.WROpcode, local, note string) string {
	call := postSendCall(verbs.SendWR{Opcode: op}, local, c.Expr{}, Target{}, "")
	return generic(call.Hinted(call.Hint + note))
}

func waitEventGeneric(ev verbs.CMEventType) string {
	return generic(getEvent(verbs.CMEvent{}, ev, false))
}

func resolveAddrGeneric() string {
	return generic(resolveAddrCall(netip.Addr{}, netip.AddrPort{}), getEvent(verbs.CMEvent{}, verbs.EventAddrResolved, false))
}

func resolveRouteGeneric() string {
	return generic(resolveRouteCall(), getEvent(verbs.CMEvent{}, verbs.EventRouteResolved, false))
}

func modifyGeneric(st verbs.QPState) string {
	set, get, modify := modifyCalls(st, verbs.QPAttr{}, 0, nil)
	return generic(set, get, modify)
}

func teardownGeneric(manual bool) string { return generic(teardownCalls(manual)...) }
