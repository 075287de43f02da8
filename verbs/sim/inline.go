package sim

import "github.com/rdmatour/rdmatour/verbs"

// IBV_SEND_INLINE as rxe does it: the provider copies the bytes the SGEs
// point at into the send WQE inside ibv_post_send (rdma-core
// providers/rxe/rxe.c, init_send_wqe: memcpy from sge->addr for each
// SGE), so the lkeys are never looked at and the buffer may be reused as
// soon as the post returns. Measured (TestRxeInlineLimits): an inline
// WRITE with lkey 0, or 0xdeadbeef, succeeds and lands. The limit is the
// QP's max_inline_data, checked before anything is queued
// (validate_send_wr: EINVAL). rxe grants up to RXE_MAX_INLINE_DATA, the
// 512 bytes of a WQE's SGE space (rxe_param.h, rxe_qp_chk_cap), and
// refuses more at create time with EINVAL (measured: 512 granted, 1024
// EINVAL).
const rxeMaxInlineData = 512

// gatherInline copies w's bytes now, as the CPU would, from whichever
// MR holds each SGE's address: in the simulated NIC memory exists only
// inside MRs. An address in none of them is EFAULT (a real provider's
// memcpy would fault on it).
func (q *qp) gatherInline(fn string, w *sendWQE) error {
	var data []byte
	for _, s := range w.wr.SGList {
		b, ok := q.dev.readAt(s.Addr, int(s.Length))
		if !ok {
			return verbs.Errorf(fn, errEFAULT, "inline SGE at 0x%x (%d bytes) is in no memory the simulated NIC knows", s.Addr, s.Length)
		}
		data = append(data, b...)
	}
	w.segs = []memSeg{{m: &mr{buf: data}, n: len(data)}}
	w.length = len(data)
	return nil
}

// readAt copies n bytes at va from the MR that holds them, whatever its
// key, PD or access.
func (d *device) readAt(va uint64, n int) ([]byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range d.mrs {
		m.mu.RLock()
		size := uint64(len(m.buf))
		if !m.dead && va >= m.addr && va-m.addr <= size && uint64(n) <= size-(va-m.addr) {
			out := append([]byte(nil), m.buf[va-m.addr:va-m.addr+uint64(n)]...)
			m.mu.RUnlock()
			return out, true
		}
		m.mu.RUnlock()
	}
	return nil, n == 0
}
