package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps/privdata"
)

// hostile is a --message with several kinds of terminal control: CSI
// clear screen and colour, BEL, an OSC window-title set, a C1 CSI
// (U+009B), a bidi override (U+202E), invalid UTF-8 and a bare CR.
const hostile = "\x1b[2J\x1b[31mRED\abell \x1b]0;pwned\x07 \u009b31m c1 \u202eevil\u202c \xff\xfe bad \rCR"

// rawControls lists what must never reach a terminal from a peer.
var rawControls = []string{"\x1b", "\a", "\u009b", "\u202e", "\u202c", "\xff", "\r"}

// A client that writes terminal controls into the server's buffer cannot
// clear, recolour, retitle or reorder the server's terminal: the plain
// server prints the bytes escaped, in every notify mode (the SEND text,
// the doorbell and the immediate data take different paths).
func TestPeerBytesReachTheTerminalEscaped(t *testing.T) {
	escaped := privdata.EscapePeer([]byte(hostile))
	for _, notify := range []string{"send", "doorbell", "imm"} {
		t.Run(notify, func(t *testing.T) {
			t.Parallel()
			port := freePort(t)
			srv := start(t, nil, "server", port, "--backend", "sim", "--plain", "--auto", "--timeout", "20s")
			srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 20*time.Second)
			cli := start(t, nil, "client", "127.0.0.1", port, "--notify", notify, "--backend", "sim", "--plain", "--auto", "--timeout", "20s", "--message", hostile)
			if code := cli.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("client exit %d:\n%s", code, cli.out)
			}
			if code := srv.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("server exit %d:\n%s", code, srv.out)
			}
			for side, out := range map[string]string{"server": srv.out.String(), "client": cli.out.String()} {
				for _, c := range rawControls {
					if strings.Contains(out, c) {
						t.Errorf("the %s printed a raw %q", side, c)
					}
				}
			}
			// The summary line and the wait-notify step's buffer = line.
			for _, want := range []string{"[server] RDMA-written buffer: " + escaped + "\n", "buffer = " + escaped + "\n"} {
				if !strings.Contains(srv.out.String(), want) {
					t.Errorf("server lacks %q:\n%s", want, srv.out)
				}
			}
		})
	}
}
