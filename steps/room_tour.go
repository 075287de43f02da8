package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
)

// A workshop room runs one tour for everyone (RoomConfig.Tour). The
// attendee's hello, in its connect request, says which tour it runs; one
// that runs another is turned away at once, the reason in the REJ, rather
// than left to a tour whose two halves do not fit (a WRITE into a room
// that waits for atomics, say).

// TourMismatchReason is the start of the reason a room gives an attendee
// whose tour is not the room's.
const TourMismatchReason = "this workshop runs --tour "

// checkRoomTour refuses the tours a room cannot serve: the ud tour's
// connections come on rdma_cm's UDP port space, and a room serves RC
// connections on one listener.
func checkRoomTour(kind TourKind) error {
	switch kind {
	case TourWrite, TourRead, TourAtomic:
		return nil
	case TourUD:
		return configError("--workshop --tour ud is not supported: a workshop room serves RC connections (RDMA_PS_TCP) and the ud tour's datagrams use RDMA_PS_UDP; run the ud tour as one server and one client, or choose --tour write, read or atomic for the room",
			"不支持 --workshop --tour ud：workshop 房间服务的是 RC 连接（RDMA_PS_TCP），而 ud 教程的数据报走 RDMA_PS_UDP；ud 教程请用一个 server 对一个 client 来跑，或者给房间选 --tour write、read 或 atomic")
	}
	return configErrorf("unknown tour %d: use write, read or atomic for a workshop room", int(kind))
}

// tourMismatch is why the room turns the request ev away because its
// hello names another tour ("" when the tours agree). No hello, or one
// that cannot be read, counts as the write tour (the seed program's).
func (r *Room) tourMismatch(ev verbs.CMEvent) string {
	h, found, err := ParseHello(ev.PrivateData)
	if !found || err != nil {
		h = HelloFor(TourWrite, "")
	}
	if h.Tour == r.cfg.Tour {
		return ""
	}
	return fmt.Sprintf("%s%s, you ran %s: start again with --tour %s", TourMismatchReason, r.cfg.Tour, h.Flags(), r.cfg.Tour)
}
