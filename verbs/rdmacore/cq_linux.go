//go:build linux && cgo

package rdmacore

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"github.com/rdmatour/rdmatour/verbs"
)

// pollBatch is the most completions one rt_poll_cq call returns; Poll
// loops for more.
const pollBatch = 32

// compQueue is an ibv_cq.
type compQueue struct {
	p *Provider

	mu     sync.RWMutex
	pollM  sync.Mutex // one poller at a time: it owns wcs
	cq     *C.struct_ibv_cq
	cqe    int
	users  int       // QPs using the CQ
	notify *cqNotify // its completion channel's part (nil: none)
	// wcs is rt_poll_cq's output, kept with the CQ (nil until the first
	// poll, freed by Destroy): a Go buffer made per call escaped to the
	// heap on every poll, empty ones included, and a Go buffer kept here
	// would still cost a cgoCheckPointer walk per call; C memory costs
	// neither.
	wcs *[pollBatch]C.struct_rt_wc
}

var _ verbs.CQ = (*compQueue)(nil)

func (q *compQueue) CQE() int { return q.cqe }

// Poll is ibv_poll_cq: it never blocks. An empty poll allocates nothing
// (nil); otherwise the one allocation is the returned slice, which is the
// caller's to keep.
func (q *compQueue) Poll(max int) ([]verbs.WC, error) {
	if max <= 0 {
		return nil, nil
	}
	var buf [pollBatch]verbs.WC
	var out []verbs.WC
	for len(out) < max {
		want := min(max-len(out), pollBatch)
		n, err := q.PollInto(buf[:want])
		if err != nil && len(out) == 0 {
			return nil, err
		}
		if n <= 0 {
			break
		}
		if out == nil {
			out = make([]verbs.WC, 0, min(max, n))
		}
		out = append(out, buf[:n]...)
		if n < want {
			break
		}
	}
	return out, nil
}

var _ verbs.WCPoller = (*compQueue)(nil)

// PollInto is ibv_poll_cq into the caller's wc (verbs.WCPoller): no
// allocation at all, which a busy poller pays per completion otherwise
// (BenchmarkWriteLatency: 1 allocation a WRITE, 64 B, before).
func (q *compQueue) PollInto(wc []verbs.WC) (int, error) {
	max := min(len(wc), 4096)
	if max == 0 {
		return 0, nil
	}
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.cq == nil {
		return 0, errDestroyed("ibv_poll_cq", "cq")
	}
	q.pollM.Lock()
	defer q.pollM.Unlock()
	if q.wcs == nil {
		q.wcs = (*[pollBatch]C.struct_rt_wc)(C.calloc(pollBatch, C.size_t(unsafe.Sizeof(C.struct_rt_wc{}))))
		if q.wcs == nil {
			return 0, verbs.Errorf("ibv_poll_cq", syscall.ENOMEM, "wc buffer")
		}
	}
	total := 0
	for total < max {
		want := min(max-total, pollBatch)
		n := int(C.rt_poll_cq(q.cq, C.int(want), &q.wcs[0]))
		if n < 0 && total == 0 {
			return 0, rcErr("ibv_poll_cq", C.int(n), "")
		}
		if n <= 0 {
			break
		}
		for i := range n {
			wc[total+i] = wcFromC(&q.wcs[i])
		}
		total += n
		if n < want {
			break
		}
	}
	return total, nil
}

func wcFromC(w *C.struct_rt_wc) verbs.WC {
	return verbs.WC{
		WRID:      uint64(w.wr_id),
		Status:    verbs.WCStatus(w.status),
		Opcode:    verbs.WCOpcode(w.opcode),
		VendorErr: uint32(w.vendor_err),
		ByteLen:   uint32(w.byte_len),
		ImmData:   uint32(w.imm_host),
		HasImm:    w.has_imm != 0,
		QPNum:     uint32(w.qp_num),
		SrcQP:     uint32(w.src_qp),
		HasGRH:    w.has_grh != 0,
	}
}

// Destroy is ibv_destroy_cq (EBUSY while a QP uses it).
func (q *compQueue) Destroy() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.cq == nil {
		return errDestroyed("ibv_destroy_cq", "cq")
	}
	if q.users > 0 {
		return &verbs.Error{Func: "ibv_destroy_cq", Errno: syscall.EBUSY,
			Detail: fmt.Sprintf("%d QP(s) still use this CQ", q.users)}
	}
	if err := q.releaseNotify(func() error {
		if rc := C.rt_destroy_cq(q.p.rt, q.cq); rc != 0 {
			return rcErr("ibv_destroy_cq", rc, "")
		}
		return nil
	}); err != nil {
		return err
	}
	q.cq = nil
	if q.wcs != nil { // no poller: q.mu is held for writing
		C.free(unsafe.Pointer(q.wcs))
		q.wcs = nil
	}
	q.p.count(func(c *verbs.ResourceCount) { c.CQs-- })
	return nil
}
