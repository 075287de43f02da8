package sim

import (
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// BenchmarkReadAtomicRoundTrip: one READ or atomic at a time, posted and
// polled to completion (a round trip through two simulated NICs over
// loopback TCP), as the read and atomic tours do.
func BenchmarkReadAtomicRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name string
		op   verbs.WROpcode
		n    int
	}{{"read-4KiB", verbs.WRRDMARead, 4096}, {"fetch-add", verbs.WRAtomicFetchAndAdd, 8}, {"cmp-swap", verbs.WRAtomicCmpAndSwp, 8}} {
		b.Run(tc.name, func(b *testing.B) {
			srv, cli := connectPair(b, pairCfg{})
			remote := srv.regMR(b, 4096, allRemote)
			local := cli.regMR(b, 4096, verbs.AccessLocalWrite)
			b.SetBytes(int64(tc.n))
			b.ResetTimer()
			for i := range b.N {
				if err := cli.qp.PostSend(verbs.SendWR{WRID: uint64(i), Opcode: tc.op, Flags: verbs.SendSignaled,
					SGList: sge(local, 0, tc.n), RemoteAddr: remote.Addr(), RKey: remote.RKey(), CompareAdd: 1}); err != nil {
					b.Fatal(err)
				}
				for {
					wcs, err := cli.cq.Poll(1)
					if err != nil {
						b.Fatal(err)
					}
					if len(wcs) == 1 {
						if wcs[0].Status != verbs.WCSuccess {
							b.Fatal(wcs[0].Status)
						}
						break
					}
				}
			}
		})
	}
}
