//go:build linux && cgo

package rdmacore

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Addressing on real verbs: the port's GID table, and what ibv_modify_qp
// and the WRITE after it do with a chosen sgid_index, is_global, path_mtu
// or a mask without one of RTR's bits. Two bare RC QPs on one device,
// connected by hand as ibv_rc_pingpong does (no CM), so every attribute is
// the test's. Needs a device (the QEMU guest); skips otherwise. The FACT
// lines are what the manual track's lessons and the simulated NIC follow.

// barePair is two RC QPs on dev, each with its CQ and a 8 KiB MR.
type barePair struct {
	pd       verbs.PD
	cq       [2]verbs.CQ
	qp       [2]verbs.QP
	mr       [2]verbs.MR
	gidIndex int // the port's RoCE v2 IPv4 GID
	gid      netip.Addr
}

func newBarePair(t *testing.T, dev verbs.Device, gidIndex int, gid netip.Addr) *barePair {
	t.Helper()
	b := &barePair{pd: must(dev.AllocPD())(t), gidIndex: gidIndex, gid: gid}
	for i := range 2 {
		b.cq[i] = must(dev.CreateCQ(16))(t)
		b.qp[i] = must(dev.CreateQP(b.pd, verbs.QPInitAttr{SendCQ: b.cq[i], RecvCQ: b.cq[i], Type: verbs.QPTRC, Cap: qpCaps}))(t)
		b.mr[i] = must(b.pd.RegMR(8192, verbs.AccessLocalWrite|verbs.AccessRemoteWrite|verbs.AccessRemoteRead))(t)
		noErr(t, b.qp[i].Modify(verbs.QPAttr{State: verbs.QPSInit, PortNum: 1, AccessFlags: verbs.AccessRemoteWrite | verbs.AccessRemoteRead},
			verbs.QPAttrState|verbs.QPAttrPKeyIndex|verbs.QPAttrPort|verbs.QPAttrAccessFlags))
	}
	return b
}

func (b *barePair) close(t *testing.T) {
	for i := range 2 {
		noErr(t, b.qp[i].Destroy())
		noErr(t, b.mr[i].Dereg())
		noErr(t, b.cq[i].Destroy())
	}
	noErr(t, b.pd.Dealloc())
}

const rtrMask = verbs.QPAttrState | verbs.QPAttrAV | verbs.QPAttrPathMTU | verbs.QPAttrDestQPN | verbs.QPAttrRQPSN | verbs.QPAttrMaxDestRdAtomic | verbs.QPAttrMinRNRTimer
const rtsMask = verbs.QPAttrState | verbs.QPAttrSQPSN | verbs.QPAttrTimeout | verbs.QPAttrRetryCnt | verbs.QPAttrRNRRetry | verbs.QPAttrMaxQPRdAtomic

// rtr is QP i's RTR attributes toward the other QP, as rdma_cm fills them.
func (b *barePair) rtr(i int) verbs.QPAttr {
	return verbs.QPAttr{State: verbs.QPSRTR, PathMTU: 1024, DestQPNum: b.qp[1-i].Num(), RQPSN: 0x100, MaxDestRdAtom: 1, MinRNRTimer: 12,
		AH: verbs.AHAttr{IsGlobal: true, DGID: b.gid, SGIDIndex: uint8(b.gidIndex), HopLimit: 64, PortNum: 1}}
}

// up moves QP i to RTR with attr and mask, then to RTS (timeout 14,
// retry_cnt 1: a lost WRITE fails in about 2 × 67 ms). It returns the
// two ibv_modify_qp results.
func (b *barePair) up(i int, attr verbs.QPAttr, mask verbs.QPAttrMask) (rtrErr, rtsErr error) {
	if rtrErr = b.qp[i].Modify(attr, mask); rtrErr != nil {
		return rtrErr, nil
	}
	rtsErr = b.qp[i].Modify(verbs.QPAttr{State: verbs.QPSRTS, SQPSN: 0x100, Timeout: 14, RetryCnt: 1, RNRRetry: 1, MaxRdAtomic: 1}, rtsMask)
	return nil, rtsErr
}

// write posts an n-byte WRITE from QP 0 into QP 1's MR and waits for its
// completion: the status, and whether the bytes landed.
func (b *barePair) write(t *testing.T, n int) string {
	msg := make([]byte, n)
	for i := range msg {
		msg[i] = byte('a' + i%26)
	}
	noErr(t, b.mr[0].Write(0, msg))
	err := b.qp[0].PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: b.mr[0].Addr(), Length: uint32(n), LKey: b.mr[0].LKey()}}, RemoteAddr: b.mr[1].Addr(), RKey: b.mr[1].RKey()})
	if err != nil {
		return "post_send " + errnoIs(err)
	}
	start := time.Now()
	var wcs []verbs.WC
	for end := time.Now().Add(10 * time.Second); len(wcs) == 0 && time.Now().Before(end); time.Sleep(time.Millisecond) {
		wcs, _ = b.cq[0].Poll(1)
	}
	if len(wcs) == 0 {
		return "no completion in 10 s"
	}
	got := must(b.mr[1].Read(0, n))(t)
	st0 := must(b.qp[0].Query())(t).State
	st1 := must(b.qp[1].Query())(t).State
	return fmt.Sprintf("wc %s after %v, landed=%v, QP states %s/%s", wcs[0].Status, time.Since(start).Round(time.Millisecond), string(got) == string(msg), st0, st1)
}

func TestAddressingFacts(t *testing.T) {
	p, dev, addr := resolvedDevice(t)
	pa := must(dev.QueryPort(1))(t)
	t.Logf("FACT port 1: active_mtu %d max_mtu %d link_layer %s", pa.ActiveMTU, pa.MaxMTU, pa.LinkLayer)
	v4, v1, ll := -1, -1, -1
	for _, g := range pa.GIDs {
		t.Logf("FACT gid[%d] %s %s", g.Index, g.Type, g.GID)
		switch {
		case g.GID.Is4In6() && g.GID.Unmap() == addr && g.Type == "RoCE v2":
			v4 = g.Index
		case g.GID.Is4In6() && g.GID.Unmap() == addr:
			v1 = g.Index
		case g.GID.IsLinkLocalUnicast() && ll < 0:
			ll = g.Index
		}
	}
	if v4 < 0 {
		t.Fatalf("no RoCE v2 GID for %s", addr)
	}
	for _, i := range []int{0, 1, 2, 3, 4, 5, 16, 255} {
		g, err := dev.QueryGID(1, i)
		t.Logf("FACT ibv_query_gid(port 1, index %d): %v %s", i, g, errnoIs(err))
	}
	gid := netip.AddrFrom16(addr.As16())
	type tc struct {
		name string
		edit func(a *verbs.QPAttr, m *verbs.QPAttrMask)
		n    int // WRITE size
	}
	cases := []tc{
		{"baseline", func(*verbs.QPAttr, *verbs.QPAttrMask) {}, 64},
		{"sgid_index=first empty", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.AH.SGIDIndex = uint8(len(pa.GIDs)) }, 64},
		{"sgid_index=200", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.AH.SGIDIndex = 200 }, 64},
		{"is_global=0", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.AH.IsGlobal = false }, 64},
		{"path_mtu=4096 (peer 1024), 64 B", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.PathMTU = 4096 }, 64},
		{"path_mtu=4096 (peer 1024), 2000 B", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.PathMTU = 4096 }, 2000},
		{"path_mtu=2048 (peer 1024), 2000 B", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.PathMTU = 2048 }, 2000},
		{"path_mtu=256 (peer 1024), 2000 B", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.PathMTU = 256 }, 2000},
	}
	if v1 >= 0 {
		cases = append(cases, tc{"sgid_index=RoCE v1", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.AH.SGIDIndex = uint8(v1) }, 64})
	}
	if ll >= 0 {
		cases = append(cases, tc{"sgid_index=link-local", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.AH.SGIDIndex = uint8(ll) }, 64})
	}
	for _, bit := range []verbs.QPAttrMask{verbs.QPAttrAV, verbs.QPAttrPathMTU, verbs.QPAttrDestQPN, verbs.QPAttrRQPSN, verbs.QPAttrMaxDestRdAtomic, verbs.QPAttrMinRNRTimer} {
		cases = append(cases, tc{"mask without " + bit.String(), func(_ *verbs.QPAttr, m *verbs.QPAttrMask) { *m &^= bit }, 64})
	}
	for _, c := range cases {
		b := newBarePair(t, dev, v4, gid)
		a, m := b.rtr(0), rtrMask
		c.edit(&a, &m)
		r0, s0 := b.up(0, a, m)
		r1, s1 := b.up(1, b.rtr(1), rtrMask)
		res := "-"
		if r0 == nil && s0 == nil && r1 == nil && s1 == nil {
			res = b.write(t, c.n)
		}
		t.Logf("FACT %s: QP0 RTR %s RTS %s; WRITE %d B: %s", c.name, errnoIs(r0), errnoIs(s0), c.n, res)
		b.close(t)
	}
	if live := p.Live(); live.Total() != 2 { // the id and its channel
		t.Errorf("live %+v", live)
	}
}
