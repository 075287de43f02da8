package sim

import (
	"math/rand/v2"
	"sync"
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

const (
	errEINVAL = syscall.EINVAL
	errEFAULT = syscall.EFAULT
	errEBUSY  = syscall.EBUSY
	errENOMEM = syscall.ENOMEM
	errEPERM  = syscall.EPERM
)

// pd is a protection domain.
type pd struct {
	dev    *device
	handle uint32

	mu   sync.Mutex
	refs int // MRs and QPs using it: ibv_dealloc_pd fails with EBUSY
	dead bool
}

// AllocPD is ibv_alloc_pd.
func (d *device) AllocPD() (verbs.PD, error) {
	d.mu.Lock()
	h := d.nextPD
	d.nextPD++
	d.mu.Unlock()
	d.p.count(func(r *verbs.ResourceCount) { r.PDs++ })
	return &pd{dev: d, handle: h}, nil
}

func (p *pd) Handle() uint32 { return p.handle }

func (p *pd) ref(delta int) {
	p.mu.Lock()
	p.refs += delta
	p.mu.Unlock()
}

// Dealloc is ibv_dealloc_pd.
func (p *pd) Dealloc() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead {
		return verbs.Errorf("ibv_dealloc_pd", errEINVAL, "PD %d already deallocated", p.handle)
	}
	if p.refs > 0 {
		return verbs.Errorf("ibv_dealloc_pd", errEBUSY, "%d MRs/QPs still use PD %d", p.refs, p.handle)
	}
	p.dead = true
	p.dev.p.count(func(r *verbs.ResourceCount) { r.PDs-- })
	return nil
}

// mr is a memory region. buf is plain Go memory: the simulated NIC is the
// only "DMA engine", and every access, local or remote, takes mu.
type mr struct {
	dev    *device
	pd     *pd
	addr   uint64
	key    uint32 // the lkey
	rkey   uint32 // the same as key, except in the strict profile
	access verbs.Access

	mu   sync.RWMutex
	buf  []byte
	dead bool
}

// RegMR is ibv_reg_mr over freshly allocated, zeroed memory.
func (p *pd) RegMR(length int, access verbs.Access) (verbs.MR, error) {
	if length <= 0 {
		return nil, verbs.Errorf("ibv_reg_mr", errEINVAL, "length %d", length)
	}
	if length > 1<<30 {
		return nil, verbs.Errorf("ibv_reg_mr", errENOMEM, "length %d exceeds the simulated NIC's 1 GiB limit", length)
	}
	// ibv_reg_mr(3): "If IBV_ACCESS_REMOTE_WRITE or IBV_ACCESS_REMOTE_ATOMIC
	// is set, then IBV_ACCESS_LOCAL_WRITE must be set too."
	if access&(verbs.AccessRemoteWrite|verbs.AccessRemoteAtomic) != 0 && access&verbs.AccessLocalWrite == 0 {
		return nil, verbs.Errorf("ibv_reg_mr", errEINVAL, "%s requires IBV_ACCESS_LOCAL_WRITE", access)
	}
	if access&^(verbs.AccessLocalWrite|verbs.AccessRemoteWrite|verbs.AccessRemoteRead|verbs.AccessRemoteAtomic) != 0 {
		return nil, verbs.Errorf("ibv_reg_mr", errEINVAL, "unsupported access flags %s", access)
	}
	p.mu.Lock()
	if p.dead {
		p.mu.Unlock()
		return nil, verbs.Errorf("ibv_reg_mr", errEINVAL, "PD %d is deallocated", p.handle)
	}
	if err := p.dev.p.charge(length); err != nil {
		p.mu.Unlock()
		return nil, err
	}
	p.refs++
	p.mu.Unlock()

	d := p.dev
	m := &mr{dev: d, pd: p, access: access, buf: make([]byte, length)}
	d.mu.Lock()
	idx := d.nextMR
	d.nextMR++
	// rxe: key = index << 8 | 8 random bits; lkey == rkey. The strict
	// profile's rkey has its own random bits and rkeyIndexBit set.
	m.key = idx<<8 | uint32(rand.N(256))
	m.rkey = m.key
	if d.limits().SplitKeys {
		m.rkey = (idx|rkeyIndexBit)<<8 | uint32(rand.N(256))
	}
	m.addr = d.nextVA
	// Leave at least a guard page between MRs so "one past the end" never
	// lands in a neighbour.
	d.nextVA += (uint64(length)+pageSize-1)/pageSize*pageSize + pageSize
	d.mrs[idx] = m
	d.mu.Unlock()
	d.p.count(func(r *verbs.ResourceCount) { r.MRs++ })
	return m, nil
}

func (m *mr) Addr() uint64         { return m.addr }
func (m *mr) Len() int             { return len(m.buf) }
func (m *mr) LKey() uint32         { return m.key }
func (m *mr) RKey() uint32         { return m.rkey }
func (m *mr) Access() verbs.Access { return m.access }

// Read copies n bytes at off.
func (m *mr) Read(off, n int) ([]byte, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.dead {
		return nil, verbs.Errorf("mr_read", errEINVAL, "MR 0x%x is deregistered", m.key)
	}
	if off < 0 || n < 0 || off > len(m.buf) || n > len(m.buf)-off {
		return nil, verbs.Errorf("mr_read", errEINVAL, "[%d,+%d) outside MR of %d bytes", off, n, len(m.buf))
	}
	return append([]byte(nil), m.buf[off:off+n]...), nil
}

// Write copies p into the MR at off.
func (m *mr) Write(off int, p []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dead {
		return verbs.Errorf("mr_write", errEINVAL, "MR 0x%x is deregistered", m.key)
	}
	if off < 0 || off > len(m.buf) || len(p) > len(m.buf)-off {
		return verbs.Errorf("mr_write", errEINVAL, "[%d,+%d) outside MR of %d bytes", off, len(p), len(m.buf))
	}
	copy(m.buf[off:], p)
	return nil
}

// Dereg is ibv_dereg_mr.
func (m *mr) Dereg() error {
	m.mu.Lock()
	if m.dead {
		m.mu.Unlock()
		return verbs.Errorf("ibv_dereg_mr", errEINVAL, "MR 0x%x already deregistered", m.key)
	}
	m.dead = true
	m.mu.Unlock()
	m.dev.mu.Lock()
	delete(m.dev.mrs, m.key>>8)
	m.dev.mu.Unlock()
	m.dev.p.uncharge(len(m.buf))
	m.pd.ref(-1)
	m.dev.p.count(func(r *verbs.ResourceCount) { r.MRs-- })
	return nil
}

// rkeyIndexBit marks an rkey's index in the strict profile, where the
// rkey is not the lkey: an lkey used as an rkey finds no MR.
const rkeyIndexBit = 1 << 23

// lookupMR finds a live MR by its lkey, or (remote) its rkey: the index
// and the random low byte.
func (d *device) lookupMR(key uint32, remote bool) *mr {
	idx := key >> 8
	if remote && d.limits().SplitKeys {
		if idx&rkeyIndexBit == 0 {
			return nil
		}
		idx &^= rkeyIndexBit
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	m := d.mrs[idx]
	if m == nil || (remote && m.rkey != key) || (!remote && m.key != key) {
		return nil
	}
	return m
}

// remoteAccess says a check is for a peer's access (by rkey).
func remoteAccess(need verbs.Access) bool {
	return need&(verbs.AccessRemoteWrite|verbs.AccessRemoteRead|verbs.AccessRemoteAtomic) != 0
}

// memSeg is a checked range of an MR.
type memSeg struct {
	m   *mr
	off int
	n   int
}

// checkRange resolves [va, va+n) under key for pd with the needed access.
// It is the single gate between a peer's numbers and our memory.
func (d *device) checkRange(key uint32, va uint64, n uint64, p *pd, need verbs.Access) (memSeg, bool) {
	m := d.lookupMR(key, remoteAccess(need))
	if m == nil || m.pd != p || m.access&need != need {
		return memSeg{}, false
	}
	size := uint64(len(m.buf))
	if va < m.addr || va-m.addr > size || n > size-(va-m.addr) {
		return memSeg{}, false
	}
	return memSeg{m: m, off: int(va - m.addr), n: int(n)}, true
}

// checkRecvRange is checkRange for a RECV's SGE: the key, PD and
// LOCAL_WRITE are checked now, the length only as far as bytes land. rxe
// checks the range of each copy (copy_data, rxe_mr_copy: mr_check_range
// on the bytes copied), so an SGE longer than its MR is fine while the
// SEND fits in the MR; the segment ends at the MR's end, and a SEND past
// it fails as one larger than the RECV. Measured: TestEditTableOnRealVerbs
// (post-recv.length=4096 on a 128-byte MR).
func (d *device) checkRecvRange(key uint32, va uint64, n uint64, p *pd) (memSeg, bool) {
	m := d.lookupMR(key, false)
	if m == nil || m.pd != p || m.access&verbs.AccessLocalWrite == 0 {
		return memSeg{}, false
	}
	size := uint64(len(m.buf))
	if va < m.addr || va-m.addr > size {
		return memSeg{}, false
	}
	return d.checkRange(key, va, min(n, size-(va-m.addr)), p, verbs.AccessLocalWrite)
}

// writeSegs scatters src into segs starting at byte offset off of the
// gathered range. Callers have checked that off+len(src) fits.
func writeSegs(segs []memSeg, off int, src []byte) {
	var pieces [4]memSeg
	for _, s := range appendSliceSegs(pieces[:0], segs, off, len(src)) {
		s.m.mu.Lock()
		if !s.m.dead {
			copy(s.m.buf[s.off:s.off+s.n], src)
		}
		s.m.mu.Unlock()
		src = src[s.n:]
	}
}

// appendSliceSegs appends to out the part [off, off+n) of the gathered
// range (out: a packet's own storage for one segment, so the common
// packet costs no extra allocation).
func appendSliceSegs(out, segs []memSeg, off, n int) []memSeg {
	for _, s := range segs {
		if n == 0 {
			break
		}
		if off >= s.n {
			off -= s.n
			continue
		}
		k := min(s.n-off, n)
		out = append(out, memSeg{m: s.m, off: s.off + off, n: k})
		n -= k
		off = 0
	}
	return out
}

// readSegs copies len(dst) bytes of segs from off into dst, reading each
// MR under its lock.
func readSegs(segs []memSeg, off int, dst []byte) {
	var pieces [4]memSeg
	for _, s := range appendSliceSegs(pieces[:0], segs, off, len(dst)) {
		s.m.mu.RLock()
		copy(dst, s.m.buf[s.off:s.off+s.n])
		s.m.mu.RUnlock()
		dst = dst[s.n:]
	}
}

// appendSegs appends the bytes of segs to b, reading each MR under its lock.
func appendSegs(b []byte, segs []memSeg) []byte {
	for _, s := range segs {
		s.m.mu.RLock()
		b = append(b, s.m.buf[s.off:s.off+s.n]...)
		s.m.mu.RUnlock()
	}
	return b
}
