package sim

import (
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// A request that ends in a NAK, followed at once by the end of the
// connection: the NAK must reach the peer before the connection closes,
// every time (the issue saw the close instead in 2 of 12 runs).
func TestNAKLeavesBeforeTheConnectionCloses(t *testing.T) {
	const runs = 30
	for _, tt := range []struct {
		name string
		end  func(t *testing.T, rs *rawServer) // what follows the bad WRITE
	}{
		{"peer half-closes", func(_ *testing.T, rs *rawServer) { rs.peer.closeWrite() }},
		{"peer sends an unframeable frame", func(_ *testing.T, rs *rawServer) { rs.peer.nc.Write([]byte{9, 0, 0, 0, 0, 0, 0, 0}) }},
		{"server application tears down at once", func(t *testing.T, rs *rawServer) {
			// As the lessons' server does: its RECV flushes, it
			// disconnects and destroys its id at once.
			wantStatus(t, pollN(t, rs.srv.cq, 1)[0], 1, verbs.WCWRFlushErr)
			must(t, rs.srv.id.Disconnect())
			must(t, rs.srv.id.DestroyQP())
			must(t, rs.srv.id.Destroy())
			rs.srv.id, rs.srv.qp = nil, nil
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for i := range runs {
				rs := newRawServer(t)
				rp := rs.peer
				bad := rp.next(packet{Opcode: verbs.OpRDMAWriteOnly, AckReq: true, HasRETH: true,
					RETH: verbs.RETH{VA: rs.target.Addr(), RKey: rs.target.RKey() ^ 0x80, DMALen: 4}, Payload: []byte("evil")})
				rp.write(t, rp.frame(bad))
				tt.end(t, rs)
				pkts, _, end := rp.readAll(5 * time.Second)
				if len(pkts) == 0 || pkts[0].Opcode != verbs.OpAcknowledge || pkts[0].AETH.Syndrome != verbs.SyndromeNAKRemAccess || pkts[0].PSN != bad.PSN {
					t.Fatalf("run %d: got %+v then %v; want a remote access NAK for PSN %#x first", i, pkts, end, bad.PSN)
				}
				rs.finish(t)
			}
		})
	}
}
