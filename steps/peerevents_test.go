package steps

import (
	"net/netip"
	"strings"
	"syscall"
	"testing"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The server's view of a client that went away during the handshake says
// what the server saw and names the client; the client's view still
// speaks about the server it could not reach.
func TestExplainEventFromEachSide(t *testing.T) {
	client := netip.MustParseAddrPort("10.0.0.2:40012")
	srvCfg := Config{Role: Server, Bind: netip.MustParseAddrPort("0.0.0.0:7471")}
	cliCfg := Config{Role: Client, Server: netip.MustParseAddrPort("10.0.0.1:7471")}
	tests := []struct {
		name      string
		cfg       Config
		peer      netip.AddrPort
		ev        verbs.CMEvent
		want      verbs.CMEventType
		says, not []string
	}{
		{"server: client reset during the handshake", srvCfg, client,
			verbs.CMEvent{Type: verbs.EventConnectError, Status: -104}, verbs.EventEstablished,
			[]string{"the client at 10.0.0.2:40012 went away during the handshake (RDMA_CM_EVENT_CONNECT_ERROR, status -104: connection reset by peer)", "Start the server again"},
			[]string{"did not answer as an RDMA server", "invalid AddrPort", "rdmatour server runs there"}},
		{"server: REP retries ran out (rxe)", srvCfg, client,
			verbs.CMEvent{Type: verbs.EventUnreachable, Status: -110}, verbs.EventEstablished,
			[]string{"the client at 10.0.0.2:40012 went away during the handshake (RDMA_CM_EVENT_UNREACHABLE, status -110: connection timed out)"}, nil},
		{"server: client rejected the REP", srvCfg, client,
			verbs.CMEvent{Type: verbs.EventRejected, Status: 28}, verbs.EventEstablished,
			[]string{"went away during the handshake (RDMA_CM_EVENT_REJECTED, reject reason 28)"}, nil},
		{"server: no address known", srvCfg, netip.AddrPort{},
			verbs.CMEvent{Type: verbs.EventDisconnected}, verbs.EventEstablished,
			[]string{"the client went away during the handshake (RDMA_CM_EVENT_DISCONNECTED, status 0)"}, []string{"invalid"}},
		{"client: the server reset the handshake", cliCfg, cliCfg.Server,
			verbs.CMEvent{Type: verbs.EventConnectError, Status: -104}, verbs.EventEstablished,
			[]string{"the server at 10.0.0.1:7471 went away during the handshake (RDMA_CM_EVENT_CONNECT_ERROR, status -104: connection reset by peer). The server took the connect request"}, []string{"did not answer"}},
		{"client: a real reject stays a reject", cliCfg, cliCfg.Server,
			verbs.CMEvent{Type: verbs.EventRejected, Status: 28}, verbs.EventEstablished,
			[]string{"the server rejected the connection"}, []string{"went away"}},
		{"client: the server did not answer", cliCfg, cliCfg.Server,
			verbs.CMEvent{Type: verbs.EventUnreachable, Status: -110}, verbs.EventEstablished,
			[]string{"10.0.0.1:7471 did not answer as an RDMA server"}, []string{"went away during the handshake"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := ExplainIn(explainEvent(tt.ev, tt.want, tt.cfg, tt.peer), "en")
			zh := ExplainIn(explainEvent(tt.ev, tt.want, tt.cfg, tt.peer), "zh")
			for _, s := range tt.says {
				if !strings.Contains(msg, s) {
					t.Errorf("%q\nlacks %q", msg, s)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(msg, s) {
					t.Errorf("%q\nsays %q", msg, s)
				}
			}
			if zh == msg || strings.Contains(zh, "the client") || strings.Contains(zh, "the server at") {
				t.Errorf("no Chinese text, or English in it: %q", zh)
			}
		})
	}
}

// On rxe a client gone after its REQ leaves rdma_accept failing with
// EINVAL and no event: the server says the client went away.
func TestAcceptFailedExplainsAVanishedClient(t *testing.T) {
	s := &Session{cfg: Config{Role: Server}}
	gone := verbs.Errorf("rdma_accept", syscall.EINVAL, "private_data_len 32")
	msg := ExplainIn(s.acceptFailed(gone), text.EN)
	if want := "the client went away during the handshake (rdma_accept: EINVAL, the request is no longer pending)"; !strings.HasPrefix(msg, want) {
		t.Errorf("%q\nwant it to start with %q", msg, want)
	}
	other := verbs.Errorf("rdma_accept", syscall.ENOMEM, "")
	if err := s.acceptFailed(other); err != other {
		t.Errorf("ENOMEM explained as %v", err)
	}
}
