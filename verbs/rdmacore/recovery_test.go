//go:build linux && cgo

package rdmacore

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Recovery on real verbs: after an error leaves a QP in ERR, what it
// takes to run a WRITE again on the same two QPs: drain, ERR -> RESET ->
// INIT -> RTR -> RTS on one side or both, with the old PSNs or new ones.
// Two bare RC QPs on one device (barePair, addressing_test.go). The FACT
// lines are what the manual track's recovery steps and the simulated NIC
// follow.

// bring moves QP i from any state through RESET, INIT, RTR and RTS, with
// rq_psn rq and sq_psn sq.
func (b *barePair) bring(i int, rq, sq uint32) error {
	q := b.qp[i]
	if err := q.Modify(verbs.QPAttr{State: verbs.QPSReset}, verbs.QPAttrState); err != nil {
		return err
	}
	if err := q.Modify(verbs.QPAttr{State: verbs.QPSInit, PortNum: 1, AccessFlags: verbs.AccessRemoteWrite | verbs.AccessRemoteRead},
		verbs.QPAttrState|verbs.QPAttrPKeyIndex|verbs.QPAttrPort|verbs.QPAttrAccessFlags); err != nil {
		return err
	}
	a := b.rtr(i)
	a.RQPSN = rq
	if err := q.Modify(a, rtrMask); err != nil {
		return err
	}
	return q.Modify(verbs.QPAttr{State: verbs.QPSRTS, SQPSN: sq, Timeout: 14, RetryCnt: 1, RNRRetry: 0, MaxRdAtomic: 1}, rtsMask)
}

// drain polls both CQs until nothing more comes for 200 ms: the flushes.
func (b *barePair) drain() string {
	var n [2]int
	for i := range 2 {
		for quiet := time.Now(); time.Since(quiet) < 200*time.Millisecond; time.Sleep(time.Millisecond) {
			wcs, _ := b.cq[i].Poll(16)
			if len(wcs) > 0 {
				n[i] += len(wcs)
				quiet = time.Now()
			}
		}
	}
	return fmt.Sprintf("drained %d/%d", n[0], n[1])
}

// states is both QPs' states.
func (b *barePair) states(t *testing.T) string {
	return fmt.Sprintf("%s/%s", must(b.qp[0].Query())(t).State, must(b.qp[1].Query())(t).State)
}

// send posts a RECV on QP 1 (if recv) and a 16-byte SEND from QP 0, and
// waits for the SEND's completion.
func (b *barePair) send(t *testing.T, recv bool) string {
	if recv {
		noErr(t, b.qp[1].PostRecv(verbs.RecvWR{WRID: 9, SGList: []verbs.SGE{{Addr: b.mr[1].Addr() + 4096, Length: 64, LKey: b.mr[1].LKey()}}}))
	}
	if err := b.qp[0].PostSend(verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: b.mr[0].Addr(), Length: 16, LKey: b.mr[0].LKey()}}}); err != nil {
		return "post_send " + errnoIs(err)
	}
	var wcs []verbs.WC
	for end := time.Now().Add(10 * time.Second); len(wcs) == 0 && time.Now().Before(end); time.Sleep(time.Millisecond) {
		wcs, _ = b.cq[0].Poll(1)
	}
	if len(wcs) == 0 {
		return "no completion in 10 s"
	}
	return "wc " + wcs[0].Status.String()
}

// badWrite is a WRITE with a wrong rkey: both QPs go to ERR.
func (b *barePair) badWrite(t *testing.T) string {
	noErr(t, b.qp[0].PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: b.mr[0].Addr(), Length: 8, LKey: b.mr[0].LKey()}}, RemoteAddr: b.mr[1].Addr(), RKey: b.mr[1].RKey() + 0x100}))
	var wcs []verbs.WC
	for end := time.Now().Add(10 * time.Second); len(wcs) == 0 && time.Now().Before(end); time.Sleep(time.Millisecond) {
		wcs, _ = b.cq[0].Poll(1)
	}
	if len(wcs) == 0 {
		return "no completion"
	}
	return "wc " + wcs[0].Status.String() + ", states " + b.states(t)
}

func TestRecoveryFacts(t *testing.T) {
	_, dev, addr := resolvedDevice(t)
	v4 := -1
	for _, g := range must(dev.QueryPort(1))(t).GIDs {
		if g.GID.Is4In6() && g.GID.Unmap() == addr && g.Type == "RoCE v2" {
			v4 = g.Index
		}
	}
	gid := netip.AddrFrom16(addr.As16())
	const old = 0x100
	for _, c := range []struct {
		name string
		// the error: a bad-rkey WRITE (both QPs to ERR) or an RNR (SEND
		// with no RECV, rnr_retry 0: the requester alone)
		rnr bool
		// which QPs are brought back, with which PSNs (-1: not brought)
		rq0, sq0, rq1, sq1 int
	}{
		{"rkey; both back, old PSNs", false, old, old, old, old},
		{"rkey; both back, new matching PSNs", false, 0x600, 0x500, 0x500, 0x600},
		{"rkey; requester back only", false, old, old, -1, -1},
		{"rkey; both back, sq_psn ahead of peer's rq_psn", false, old, 0x500, old, old},
		{"rkey; both back, sq_psn behind peer's rq_psn", false, old, 0x80, old, old},
		{"rnr; requester back only, old PSN", true, old, old, -1, -1},
		{"rnr; requester back only, new sq_psn", true, old, 0x500, -1, -1},
		{"rnr; both back, new matching PSNs", true, 0x600, 0x500, 0x500, 0x600},
	} {
		b := newBarePair(t, dev, v4, gid)
		noErr(t, b.bring(0, old, old))
		noErr(t, b.bring(1, old, old))
		var first string
		if c.rnr {
			first = b.send(t, false) + ", states " + b.states(t)
		} else {
			first = b.badWrite(t)
		}
		dr := b.drain()
		var back string
		if c.rq0 >= 0 {
			back += "QP0 " + errnoIs(b.bring(0, uint32(c.rq0), uint32(c.sq0))) + " "
		}
		if c.rq1 >= 0 {
			back += "QP1 " + errnoIs(b.bring(1, uint32(c.rq1), uint32(c.sq1))) + " "
		}
		again := b.send(t, true)
		t.Logf("FACT %s: error %s; %s; back: %s; states %s; SEND again: %s; states after %s", c.name, first, dr, back, b.states(t), again, b.states(t))
		b.drain()
		b.close(t)
	}
}

// resolvedDevice opens the provider and gives the device rdma_cm resolves
// the guest's RDMA address to, and that address: the bare-QP measurements
// (addressing, recovery) build their QPs on it. The CM id holding it
// lives until the test ends.
func resolvedDevice(t *testing.T) (*Provider, verbs.Device, netip.Addr) {
	t.Helper()
	p, err := Open()
	if err != nil {
		t.Skip(err)
	}
	addr := rdmaAddr(t, p)
	ch := must(p.CreateEventChannel())(t)
	id := must(ch.CreateID(verbs.PSTCP))(t)
	t.Cleanup(func() { noErr(t, id.Destroy()); noErr(t, ch.Destroy()) })
	noErr(t, id.ResolveAddr(netip.AddrPort{}, netip.AddrPortFrom(addr, port()), 5*time.Second))
	event(t, ch, verbs.EventAddrResolved)
	return p, id.Device(), addr
}
