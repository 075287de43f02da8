package steps

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// explainEvent explains an rdma_cm event the tour did not expect from the
// side that saw it. A side whose peer went away during the handshake
// says what it saw and who went away: the server always (its client may
// vanish at any point before ESTABLISHED), the client when the server
// reset the connection after taking its request. Everything else is
// explained as unexpectedEvent does (which speaks from the client's side:
// the server it could not reach). peer is the other side's address as far
// as this side knows it (Session.peerAddr).
func explainEvent(ev verbs.CMEvent, want verbs.CMEventType, cfg Config, peer netip.AddrPort) error {
	if want != verbs.EventEstablished || !peerWentAway(ev, cfg.Role) {
		return unexpectedEvent(ev, want, cfg)
	}
	seen := ev.Type.String() + ", " + cmStatusText(ev.Type, ev.Status)
	return wentAway(cfg.Role, peer, seen, &CMEventError{Got: ev.Type, Want: want, Status: ev.Status})
}

// wentAway is the explanation of a peer that vanished during the
// handshake, from role's side: seen is what this side saw, err the error
// it saw it as.
func wentAway(role Role, peer netip.AddrPort, seen string, err error) error {
	other, otherZH, fix := "the client", "client", text.Text{
		EN: "nothing is wrong on this side: the client stopped (Ctrl-C, kill, a crash) or lost the network before the connection was ESTABLISHED. Start the server again, then the client",
		ZH: "这一端没有问题：client 在连接 ESTABLISHED 之前退出了（Ctrl-C、kill、崩溃）或断了网。重新启动 server，再启动 client"}
	if role == Client {
		other, otherZH, fix = "the server", "server", text.Text{
			EN: "the server took the connect request, then stopped (Ctrl-C, kill, a crash) or lost the network. Start it again, then this client",
			ZH: "server 收到了连接请求，随后退出了（Ctrl-C、kill、崩溃）或断了网。重新启动它，再启动这个 client"}
	}
	if peer.IsValid() {
		other += " at " + peer.String()
		otherZH += "（" + peer.String() + "）"
	}
	return &Problem{Err: err, quiet: true,
		What: text.Text{EN: other + " went away during the handshake (" + seen + ")",
			ZH: otherZH + " 在握手过程中消失了（" + seen + "）"},
		Fix: fix}
}

// peerWentAway says ev, met while waiting for ESTABLISHED, means the peer
// is gone rather than never there.
func peerWentAway(ev verbs.CMEvent, role Role) bool {
	switch ev.Type {
	case verbs.EventUnreachable, verbs.EventConnectError:
		return role == Server || ev.Status == -int(syscall.ECONNRESET)
	case verbs.EventRejected, verbs.EventDisconnected:
		return role == Server
	}
	return false
}

// acceptFailed explains a failed rdma_accept. With the tour's arguments
// EINVAL means the request is no longer pending: on rxe a client that went
// away after its REQ has had its kernel send a REJ, which moves the
// server's id out of the connect state; no event says so, because ucma
// drops the events of an id that has not been accepted yet.
func (s *Session) acceptFailed(err error) error {
	if !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return wentAway(Server, s.peerAddr(), "rdma_accept: EINVAL, the request is no longer pending", err)
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
