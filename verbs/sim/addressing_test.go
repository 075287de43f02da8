package sim

import (
	"errors"
	"syscall"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// INIT -> RTR with one addressing attribute changed answers as rxe does
// (rdmacore's TestAddressingFacts, measured on 6.1 in the guest): the
// GID table's empty slots ENODATA, the link-local GID toward an IPv4
// peer and a missing GRH EINVAL, a path MTU above the active MTU (up to
// max_mtu) accepted, and every RTR mask bit required.
func TestAddressingAsRxe(t *testing.T) {
	r := newRig(t)
	for _, tc := range []struct {
		name string
		edit func(*verbs.QPAttr, *verbs.QPAttrMask)
		want syscall.Errno // 0: accepted
	}{
		{"baseline", func(*verbs.QPAttr, *verbs.QPAttrMask) {}, 0},
		{"sgid_index=2 (empty)", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.AH.SGIDIndex = 2 }, syscall.ENODATA},
		{"sgid_index=200", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.AH.SGIDIndex = 200 }, syscall.ENODATA},
		{"sgid_index=0 (link-local)", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.AH.SGIDIndex = 0 }, syscall.EINVAL},
		{"is_global=0", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.AH.IsGlobal = false }, syscall.EINVAL},
		{"path_mtu=4096", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.PathMTU = 4096 }, 0},
		{"path_mtu=256", func(a *verbs.QPAttr, _ *verbs.QPAttrMask) { a.PathMTU = 256 }, 0},
		{"without IBV_QP_AV", func(_ *verbs.QPAttr, m *verbs.QPAttrMask) { *m &^= verbs.QPAttrAV }, syscall.EINVAL},
		{"without IBV_QP_PATH_MTU", func(_ *verbs.QPAttr, m *verbs.QPAttrMask) { *m &^= verbs.QPAttrPathMTU }, syscall.EINVAL},
		{"without IBV_QP_DEST_QPN", func(_ *verbs.QPAttr, m *verbs.QPAttrMask) { *m &^= verbs.QPAttrDestQPN }, syscall.EINVAL},
		{"without IBV_QP_RQ_PSN", func(_ *verbs.QPAttr, m *verbs.QPAttrMask) { *m &^= verbs.QPAttrRQPSN }, syscall.EINVAL},
		{"without IBV_QP_MAX_DEST_RD_ATOMIC", func(_ *verbs.QPAttr, m *verbs.QPAttrMask) { *m &^= verbs.QPAttrMaxDestRdAtomic }, syscall.EINVAL},
		{"without IBV_QP_MIN_RNR_TIMER", func(_ *verbs.QPAttr, m *verbs.QPAttrMask) { *m &^= verbs.QPAttrMinRNRTimer }, syscall.EINVAL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := r.qp(t)
			bringTo(t, q, verbs.QPSInit)
			a, m := fullAttr, verbs.QPAttrState|maskRTR
			a.State = verbs.QPSRTR
			tc.edit(&a, &m)
			err := q.Modify(a, m)
			var e *verbs.Error
			switch {
			case tc.want == 0 && err != nil:
				t.Fatalf("ibv_modify_qp: %v, want it accepted", err)
			case tc.want != 0 && (!errors.As(err, &e) || e.Errno != tc.want):
				t.Fatalf("ibv_modify_qp: %v, want %s", err, verbs.ErrnoName(tc.want))
			}
		})
	}
}
