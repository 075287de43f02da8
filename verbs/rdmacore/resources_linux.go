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

// protDomain is an ibv_pd.
type protDomain struct {
	p   *Provider
	dev *device

	mu    sync.Mutex
	pd    *C.struct_ibv_pd // nil once deallocated
	users int              // MRs and QPs on this PD
}

var _ verbs.PD = (*protDomain)(nil)

func (d *protDomain) Handle() uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pd == nil {
		return 0
	}
	return uint32(d.pd.handle)
}

// RegMR allocates zeroed page-aligned memory with posix_memalign (never the
// Go heap) and registers it with ibv_reg_mr.
func (d *protDomain) RegMR(length int, access verbs.Access) (verbs.MR, error) {
	if length <= 0 || length > 1<<30 {
		return nil, verbs.Errorf("ibv_reg_mr", syscall.EINVAL, "length %d", length)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pd == nil {
		return nil, errDestroyed("ibv_reg_mr", "pd")
	}
	mem := C.rt_alloc(C.size_t(length))
	if mem == nil {
		return nil, verbs.Errorf("posix_memalign", syscall.ENOMEM, "%d bytes", length)
	}
	mr, err := C.rt_reg_mr(d.p.rt, d.pd, mem, C.size_t(length), C.int(access))
	if mr == nil {
		C.free(mem)
		return nil, cErr("ibv_reg_mr", err, fmt.Sprintf("length %d access %s", length, access))
	}
	d.users++
	d.p.count(func(c *verbs.ResourceCount) { c.MRs++ })
	return &memRegion{p: d.p, pd: d, mr: mr, mem: mem, length: length, access: access,
		addr: uint64(uintptr(mr.addr)), lkey: uint32(mr.lkey), rkey: uint32(mr.rkey)}, nil
}

// Dealloc is ibv_dealloc_pd (EBUSY while MRs or QPs use the PD).
func (d *protDomain) Dealloc() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pd == nil {
		return errDestroyed("ibv_dealloc_pd", "pd")
	}
	if d.users > 0 {
		return &verbs.Error{Func: "ibv_dealloc_pd", Errno: syscall.EBUSY,
			Detail: fmt.Sprintf("%d MR(s)/QP(s) still use this PD", d.users)}
	}
	if rc := C.rt_dealloc_pd(d.p.rt, d.pd); rc != 0 {
		return rcErr("ibv_dealloc_pd", rc, "")
	}
	d.pd = nil
	d.p.count(func(c *verbs.ResourceCount) { c.PDs-- })
	return nil
}

// memRegion is an ibv_mr and the C memory it covers.
type memRegion struct {
	p  *Provider
	pd *protDomain

	mu     sync.RWMutex
	mr     *C.struct_ibv_mr // nil once deregistered
	mem    unsafe.Pointer
	length int
	access verbs.Access

	addr       uint64
	lkey, rkey uint32
}

var _ verbs.MR = (*memRegion)(nil)

func (m *memRegion) bounds(fn string, off, n int) error {
	if off < 0 || n < 0 || off > m.length || n > m.length-off {
		return &verbs.Error{Func: fn, Errno: syscall.EFAULT,
			Detail: fmt.Sprintf("offset %d + %d bytes is outside the %d-byte MR", off, n, m.length)}
	}
	return nil
}

// Read copies n bytes at off out of the MR.
func (m *memRegion) Read(off, n int) ([]byte, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.mr == nil {
		return nil, errDestroyed("memcpy", "mr")
	}
	if err := m.bounds("memcpy", off, n); err != nil {
		return nil, err
	}
	out := make([]byte, n)
	copy(out, unsafe.Slice((*byte)(m.mem), m.length)[off:off+n])
	return out, nil
}

// Write copies b into the MR at off.
func (m *memRegion) Write(off int, b []byte) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.mr == nil {
		return errDestroyed("memcpy", "mr")
	}
	if err := m.bounds("memcpy", off, len(b)); err != nil {
		return err
	}
	copy(unsafe.Slice((*byte)(m.mem), m.length)[off:], b)
	return nil
}

// Dereg is ibv_dereg_mr, then free of the memory.
func (m *memRegion) Dereg() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mr == nil {
		return errDestroyed("ibv_dereg_mr", "mr")
	}
	if rc := C.rt_dereg_mr(m.p.rt, m.mr); rc != 0 {
		return rcErr("ibv_dereg_mr", rc, "")
	}
	m.mr = nil
	C.free(m.mem)
	m.mem = nil
	m.pd.mu.Lock()
	m.pd.users--
	m.pd.mu.Unlock()
	m.p.count(func(c *verbs.ResourceCount) { c.MRs-- })
	return nil
}

// qpParts checks that the PD and CQs of a QP to create come from this
// backend, and defaults the QP type to RC.
func qpParts(fn string, pdi verbs.PD, attr *verbs.QPInitAttr) (*protDomain, *compQueue, *compQueue, error) {
	pd, ok := pdi.(*protDomain)
	if !ok || pd == nil {
		return nil, nil, nil, &verbs.Error{Func: fn, Errno: syscall.EINVAL, Detail: "pd is not from this provider"}
	}
	scq, ok1 := attr.SendCQ.(*compQueue)
	rcq, ok2 := attr.RecvCQ.(*compQueue)
	if !ok1 || !ok2 || scq == nil || rcq == nil {
		return nil, nil, nil, &verbs.Error{Func: fn, Errno: syscall.EINVAL, Detail: "send_cq/recv_cq missing or not from this provider"}
	}
	if attr.Type == 0 {
		attr.Type = verbs.QPTRC
	}
	return pd, scq, rcq, nil
}

// newQueuePair wraps a created QP; it holds its PD and CQs (which cannot
// be destroyed under it) until release. The caller holds their locks.
func newQueuePair(p *Provider, qp *C.struct_ibv_qp, typ verbs.QPType, pd *protDomain, scq, rcq *compQueue) *queuePair {
	q := &queuePair{p: p, qp: qp, typ: typ, pd: pd, scq: scq, rcq: rcq, num: uint32(qp.qp_num)}
	pd.users++
	scq.users++
	if rcq != scq {
		rcq.users++
	}
	p.count(func(n *verbs.ResourceCount) { n.QPs++ })
	return q
}

// initAttr is attr as struct ibv_qp_init_attr, for rdma_create_qp and
// ibv_create_qp alike. The caller holds the CQs' locks.
func initAttr(scq, rcq *compQueue, attr verbs.QPInitAttr) C.struct_ibv_qp_init_attr {
	var ia C.struct_ibv_qp_init_attr
	ia.send_cq = scq.cq
	ia.recv_cq = rcq.cq
	ia.qp_type = C.enum_ibv_qp_type(attr.Type)
	ia.cap.max_send_wr = C.uint32_t(attr.Cap.MaxSendWR)
	ia.cap.max_recv_wr = C.uint32_t(attr.Cap.MaxRecvWR)
	ia.cap.max_send_sge = C.uint32_t(attr.Cap.MaxSendSGE)
	ia.cap.max_recv_sge = C.uint32_t(attr.Cap.MaxRecvSGE)
	ia.cap.max_inline_data = C.uint32_t(attr.Cap.MaxInlineData)
	ia.srq = srqOf(attr.SRQ)
	if attr.SigAll {
		ia.sq_sig_all = 1
	}
	return ia
}

// queuePair is an ibv_qp: created by rdma_create_qp (the cmID owns it) or
// by ibv_create_qp (manual; the application owns it).
type queuePair struct {
	p        *Provider
	typ      verbs.QPType
	num      uint32
	pd       *protDomain
	scq, rcq *compQueue

	mu sync.RWMutex
	qp *C.struct_ibv_qp // nil once destroyed
	// manual: made with ibv_create_qp (Device.CreateQP), owned by the
	// application, not by a CM id.
	manual bool
	srq    *sharedRQ // init_attr.srq, held until release (srq_linux.go)
}

var _ verbs.QP = (*queuePair)(nil)

func (q *queuePair) Num() uint32 { return q.num }

// release drops the destroyed QP's hold on its PD and CQs (which may now be
// destroyed) and its count in Live.
func (q *queuePair) release() {
	q.pd.mu.Lock()
	q.pd.users--
	q.pd.mu.Unlock()
	for _, cq := range []*compQueue{q.scq, q.rcq} {
		cq.mu.Lock()
		cq.users--
		cq.mu.Unlock()
		if q.rcq == q.scq {
			break
		}
	}
	q.srq.use(-1)
	q.p.count(func(n *verbs.ResourceCount) { n.QPs-- })
}
func (q *queuePair) Type() verbs.QPType { return q.typ }

const maxSGE = 32

// verbs.SGE has struct ibv_sge's layout (u64 addr, u32 length, u32 lkey):
// these fail to compile if either changes, so sgl may hand the caller's
// SGE array to ibv_post_send/ibv_post_recv as it is.
var (
	_ [unsafe.Sizeof(verbs.SGE{}) - unsafe.Sizeof(C.struct_ibv_sge{})]byte
	_ [unsafe.Sizeof(C.struct_ibv_sge{}) - unsafe.Sizeof(verbs.SGE{})]byte
	_ [unsafe.Offsetof(verbs.SGE{}.Length) - unsafe.Offsetof(C.struct_ibv_sge{}.length)]byte
	_ [unsafe.Offsetof(C.struct_ibv_sge{}.length) - unsafe.Offsetof(verbs.SGE{}.Length)]byte
	_ [unsafe.Offsetof(verbs.SGE{}.LKey) - unsafe.Offsetof(C.struct_ibv_sge{}.lkey)]byte
	_ [unsafe.Offsetof(C.struct_ibv_sge{}.lkey) - unsafe.Offsetof(verbs.SGE{}.LKey)]byte
)

// sgl is the SGE list as ibv_post_* reads it: the caller's own array, not a
// copy (a copy was a heap allocation on every post; measured in
// bench_test.go). cgo lets C read it (it holds no Go pointers) and C keeps
// nothing: rxe's post_one_send (providers/rxe/rxe.c) copies the SGEs into
// the send queue, ibv_cmd_post_send into its command, before returning.
// nil when the list is empty.
func sgl(fn string, in []verbs.SGE) (*C.struct_ibv_sge, error) {
	if len(in) > maxSGE {
		return nil, verbs.Errorf(fn, syscall.EINVAL, "num_sge %d", len(in))
	}
	if len(in) == 0 {
		return nil, nil
	}
	return (*C.struct_ibv_sge)(unsafe.Pointer(&in[0])), nil
}

// PostSend is ibv_post_send with one WR; a non-zero return is the errno.
func (q *queuePair) PostSend(wr verbs.SendWR) error {
	sges, err := sgl("ibv_post_send", wr.SGList)
	if err != nil {
		return err
	}
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.qp == nil {
		return errDestroyed("ibv_post_send", "qp")
	}
	if q.typ == verbs.QPTUD {
		return q.postSendUD(wr, sges)
	}
	var rc C.int
	if len(wr.SGList) == 1 {
		// The common WR, with no Go pointer for cgo to check on the way
		// in (cgoCheckPointer was 2.5% of BenchmarkWriteLatency's CPU).
		s := wr.SGList[0]
		rc = C.rt_post_send1(q.qp, C.uint64_t(wr.WRID), C.int(wr.Opcode), C.uint(wr.Flags),
			C.uint64_t(s.Addr), C.uint32_t(s.Length), C.uint32_t(s.LKey),
			C.uint64_t(wr.RemoteAddr), C.uint32_t(wr.RKey), C.uint32_t(wr.ImmData),
			C.uint64_t(wr.CompareAdd), C.uint64_t(wr.Swap))
	} else {
		rc = C.rt_post_send(q.qp, C.uint64_t(wr.WRID), C.int(wr.Opcode), C.uint(wr.Flags),
			sges, C.int(len(wr.SGList)), C.uint64_t(wr.RemoteAddr), C.uint32_t(wr.RKey), C.uint32_t(wr.ImmData),
			C.uint64_t(wr.CompareAdd), C.uint64_t(wr.Swap))
	}
	if rc != 0 {
		return rcErr("ibv_post_send", rc, fmt.Sprintf("%s wr_id %d", wr.Opcode, wr.WRID))
	}
	return nil
}

// PostRecv is ibv_post_recv with one WR.
func (q *queuePair) PostRecv(wr verbs.RecvWR) error {
	sges, err := sgl("ibv_post_recv", wr.SGList)
	if err != nil {
		return err
	}
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.qp == nil {
		return errDestroyed("ibv_post_recv", "qp")
	}
	if rc := C.rt_post_recv(q.qp, C.uint64_t(wr.WRID), sges, C.int(len(wr.SGList))); rc != 0 {
		return rcErr("ibv_post_recv", rc, fmt.Sprintf("wr_id %d", wr.WRID))
	}
	return nil
}

// Query is ibv_query_qp for the attributes the tour shows.
func (q *queuePair) Query() (verbs.QPAttr, error) {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.qp == nil {
		return verbs.QPAttr{}, errDestroyed("ibv_query_qp", "qp")
	}
	var a C.struct_rt_qp_attr
	if rc := C.rt_query_qp_full(q.p.rt, q.qp, &a); rc != 0 {
		return verbs.QPAttr{}, rcErr("ibv_query_qp", rc, "")
	}
	return attrFromC(&a), nil
}
