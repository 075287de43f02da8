package sim

import (
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// A WRITE whose local SGE runs past its MR after the first packet: the
// server's check of the whole RETH answers first when the WRITE does not
// fit there either; when it does, the packets before the bad bytes land
// and the WR fails locally (rxe: copy_data per packet, check_rkey on the
// RETH; see localfault.go).
func TestLocalSGEPastTheMRsEnd(t *testing.T) {
	for _, tc := range []struct {
		name       string
		remoteSize int
		want       verbs.WCStatus
		landed     int
	}{
		{"remote MR too small as well: its NAK first", 4096, verbs.WCRemAccessErr, 0},
		{"remote MR big enough: local protection error", 8192, verbs.WCLocProtErr, 4 * activeMTU},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{})
			remote := srv.regMR(t, tc.remoteSize, rwAccess)
			local := cli.regMR(t, 4096, 0)
			must(t, local.Write(0, []byte("first packet")))
			must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, SGList: sge(local, 0, 4097),
				RemoteAddr: remote.Addr(), RKey: remote.RKey(), Flags: verbs.SendSignaled}))
			wantStatus(t, pollN(t, cli.cq, 1)[0], 1, tc.want)
			got, _ := remote.Read(0, 12)
			if landed := string(got) == "first packet"; landed != (tc.landed > 0) {
				t.Fatalf("first packet landed %v, want %v", landed, tc.landed > 0)
			}
			if qpState(t, cli.qp) != verbs.QPSErr {
				t.Fatal("the client's QP should be in ERR")
			}
		})
	}
}
