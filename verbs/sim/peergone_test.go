package sim

import (
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// A peer that quits cleanly (rdma_disconnect, then maybe its whole
// teardown) while this side is about to WRITE: as on rxe, the WRITE is
// dropped by the peer's QP in ERR (or by nobody), never acknowledged, and
// completes with "transport retry counter exceeded" after (retry_cnt+1)
// local ACK timeouts, not after the application's own timeout.
func TestWriteAfterPeerDisconnected(t *testing.T) {
	for _, tt := range []struct {
		name     string
		retry    uint8
		teardown bool // the peer also destroys everything (its connection closes)
	}{
		{"peer disconnected, its QP in ERR", 0, false},
		{"peer tore everything down", 0, true},
		{"peer tore everything down, retry_count 3", 3, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{connect: verbs.ConnParam{RetryCount: tt.retry}, noCleanup: true})
			target := srv.regMR(t, 64, verbs.AccessLocalWrite|verbs.AccessRemoteWrite)
			local := cli.regMR(t, 64, verbs.AccessLocalWrite)
			must(t, srv.id.Disconnect())
			waitEvent(t, cli.ch, verbs.EventDisconnected)
			if tt.teardown {
				waitEvent(t, srv.ch, verbs.EventDisconnected) // the DREQ's timeout: the client does not answer yet
				teardown(t, srv)
			}
			start := time.Now()
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: 7, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
				SGList: sge(local, 0, 8), RemoteAddr: target.Addr(), RKey: target.RKey()}))
			wantStatus(t, pollN(t, cli.cq, 1)[0], 7, verbs.WCRetryExcErr)
			took := time.Since(start)
			min := time.Duration(tt.retry+1) * 67 * time.Millisecond
			if took < min || took > 5*time.Second {
				t.Errorf("retry exceeded after %v; want about %v ((retry_count+1) ACK timeouts of 67 ms)", took, min)
			}
			t.Logf("transport retry counter exceeded %v after the post", took.Round(time.Millisecond))
			if st := qpState(t, cli.qp); st != verbs.QPSErr {
				t.Errorf("QP %s, want ERR", st)
			}
			if !tt.teardown {
				b, _ := target.Read(0, 8)
				if string(b) != "\x00\x00\x00\x00\x00\x00\x00\x00" {
					t.Errorf("the peer's QP in ERR wrote %q", b)
				}
				teardown(t, srv, cli)
				return
			}
			teardown(t, cli)
		})
	}
}
