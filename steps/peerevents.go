package steps

import (
	"fmt"
	"net/netip"
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

// explainEvent explains an rdma_cm event the tour did not expect from the
// side that saw it. A server that loses its client during the handshake
// says what it saw and who went away; everything else is explained as
// unexpectedEvent does (which speaks from the client's side: the server
// it could not reach). peer is the other side's address as far as this
// side knows it (Session.peerAddr).
func explainEvent(ev verbs.CMEvent, want verbs.CMEventType, cfg Config, peer netip.AddrPort) error {
	if cfg.Role != Server || want != verbs.EventEstablished {
		return unexpectedEvent(ev, want, cfg)
	}
	err := &CMEventError{Got: ev.Type, Want: want, Status: ev.Status}
	switch ev.Type {
	case verbs.EventUnreachable, verbs.EventConnectError, verbs.EventRejected, verbs.EventDisconnected:
		client := "the client"
		if peer.IsValid() {
			client += " at " + peer.String()
		}
		seen := ev.Type.String() + ", " + cmStatusText(ev.Type, ev.Status)
		return &Problem{Err: err, quiet: true,
			What: Text{client + " went away during the handshake (" + seen + ")",
				client + " 在握手过程中消失了（" + seen + "）"},
			Fix: Text{"nothing is wrong on this side: the client stopped (Ctrl-C, kill, a crash) or lost the network before the connection was ESTABLISHED. Start the server again, then the client",
				"这一端没有问题：client 在连接 ESTABLISHED 之前退出了（Ctrl-C、kill、崩溃）或断了网。重新启动 server，再启动 client"}}
	}
	return unexpectedEvent(ev, want, cfg)
}

// cmStatusText says what event->status means: a negative errno for most
// events, an IB CM reject reason for RDMA_CM_EVENT_REJECTED.
func cmStatusText(t verbs.CMEventType, status int) string {
	switch {
	case t == verbs.EventRejected:
		return fmt.Sprintf("reject reason %d", status)
	case status < 0:
		return fmt.Sprintf("status %d: %v", status, syscall.Errno(-status))
	}
	return fmt.Sprintf("status %d", status)
}

// peerAddr is the other side's address as this side knows it: the
// client's, read from the connection's cm id, on the server; the address
// it connects to on the client.
func (s *Session) peerAddr() netip.AddrPort {
	if s.cfg.Role == Client {
		return s.cfg.Server
	}
	s.mu.Lock()
	id := s.id
	s.mu.Unlock()
	if id == nil {
		return netip.AddrPort{}
	}
	return id.PeerAddr()
}
