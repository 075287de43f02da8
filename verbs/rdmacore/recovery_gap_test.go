//go:build linux && cgo

package rdmacore

import (
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// When the requester comes back from ERR before the responder does: its
// SEND goes out while the responder's QP is still in ERR (then RESET,
// INIT), which drop it; does the requester's retry (retry_cnt 7,
// timeout 14: about 67 ms apart) carry it across the gap once the
// responder is back in RTR on the old PSN, and how long until a gap
// too long ends it? Measured on 6.1 in the guest (2026-12-02): after
// gaps of 0.2 s, 1.5 s and 4 s alike the SEND succeeds, 16-81 ms after
// the responder's RTS: rxe reads retry_cnt 7 as "retry for ever"
// (rxe_comp.c rxe_completer, COMPST_ERROR_RETRY), where the spec counts
// 7 retries. The FACT lines are what the steps' recover-qp lesson leans
// on when its two sides do not move in step; the simulated NIC's
// TestRecoveryRetriesAcrossTheGap does the same.
func TestRecoveryRetriesAcrossTheGap(t *testing.T) {
	_, dev, addr := resolvedDevice(t)
	v4 := -1
	for _, g := range must(dev.QueryPort(1))(t).GIDs {
		if g.GID.Is4In6() && g.GID.Unmap() == addr && g.Type == "RoCE v2" {
			v4 = g.Index
		}
	}
	gid := netip.AddrFrom16(addr.As16())
	const old = 0x100
	for _, gap := range []time.Duration{200 * time.Millisecond, 1500 * time.Millisecond, 4 * time.Second} {
		b := newBarePair(t, dev, v4, gid)
		noErr(t, b.bring(0, old, old))
		noErr(t, b.bring(1, old, old))
		first := b.badWrite(t)
		b.drain()
		// The requester back, with retry_cnt 7.
		q := b.qp[0]
		noErr(t, q.Modify(verbs.QPAttr{State: verbs.QPSReset}, verbs.QPAttrState))
		noErr(t, q.Modify(verbs.QPAttr{State: verbs.QPSInit, PortNum: 1, AccessFlags: verbs.AccessRemoteWrite | verbs.AccessRemoteRead},
			verbs.QPAttrState|verbs.QPAttrPKeyIndex|verbs.QPAttrPort|verbs.QPAttrAccessFlags))
		a := b.rtr(0)
		a.RQPSN = old
		noErr(t, q.Modify(a, rtrMask))
		noErr(t, q.Modify(verbs.QPAttr{State: verbs.QPSRTS, SQPSN: old, Timeout: 14, RetryCnt: 7, RNRRetry: 0, MaxRdAtomic: 1}, rtsMask))
		start := time.Now()
		noErr(t, q.PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
			SGList: []verbs.SGE{{Addr: b.mr[0].Addr(), Length: 16, LKey: b.mr[0].LKey()}}}))
		got := make(chan verbs.WC, 1)
		go func() {
			for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
				if wcs, err := b.cq[0].Poll(1); err == nil && len(wcs) == 1 {
					got <- wcs[0]
					return
				}
			}
			got <- verbs.WC{Status: verbs.WCGeneralErr}
		}()
		time.Sleep(gap)
		during := must(b.qp[1].Query())(t).State
		// The responder back: RESET, INIT, its RECV, RTR, RTS.
		r := b.qp[1]
		noErr(t, r.Modify(verbs.QPAttr{State: verbs.QPSReset}, verbs.QPAttrState))
		noErr(t, r.Modify(verbs.QPAttr{State: verbs.QPSInit, PortNum: 1, AccessFlags: verbs.AccessRemoteWrite | verbs.AccessRemoteRead},
			verbs.QPAttrState|verbs.QPAttrPKeyIndex|verbs.QPAttrPort|verbs.QPAttrAccessFlags))
		noErr(t, r.PostRecv(verbs.RecvWR{WRID: 9, SGList: []verbs.SGE{{Addr: b.mr[1].Addr() + 4096, Length: 64, LKey: b.mr[1].LKey()}}}))
		ra := b.rtr(1)
		ra.RQPSN = old
		noErr(t, r.Modify(ra, rtrMask))
		noErr(t, r.Modify(verbs.QPAttr{State: verbs.QPSRTS, SQPSN: old, Timeout: 14, RetryCnt: 1, RNRRetry: 0, MaxRdAtomic: 1}, rtsMask))
		wc := <-got
		t.Logf("FACT requester back first (retry_cnt 7, timeout 14), responder in %s for %v: error %s; SEND again: wc %s after %v; states %s",
			during, gap, first, wc.Status, time.Since(start).Round(time.Millisecond), b.states(t))
		b.drain()
		b.close(t)
	}
}
