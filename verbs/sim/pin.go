package sim

import (
	"sync"

	"github.com/rdmatour/rdmatour/verbs"
)

// pinAccount is what the kernel keeps per process for pinned memory
// (mm->pinned_vm), modelled on ib_umem_get (drivers/infiniband/core/
// umem.c, Linux 6.1): every MR's pages are charged, and when the process
// has lowered its RLIMIT_MEMLOCK through LimitPinning a registration
// that would pass it fails — EPERM when the limit is 0 (can_do_mlock),
// ENOMEM otherwise — unless the process has CAP_IPC_LOCK. Without
// LimitPinning the simulated NIC holds MRs to no limit, as before: the
// process's own RLIMIT_MEMLOCK is the real kernel's business, and the
// simulated NIC pins nothing.
type pinAccount struct {
	mu      sync.Mutex
	pages   uint64
	limited bool
	limit   uint64 // bytes, the soft limit LimitPinning set
}

var _ verbs.PinLimiter = (*Provider)(nil)

// LimitPinning holds this simulated process's MRs to soft bytes of
// pinned memory, as setrlimit(RLIMIT_MEMLOCK) would; restore lifts it.
func (p *Provider) LimitPinning(soft uint64) (func() error, error) {
	p.pins.mu.Lock()
	defer p.pins.mu.Unlock()
	oldLimited, oldLimit := p.pins.limited, p.pins.limit
	p.pins.limited, p.pins.limit = true, soft
	return func() error {
		p.pins.mu.Lock()
		defer p.pins.mu.Unlock()
		p.pins.limited, p.pins.limit = oldLimited, oldLimit
		return nil
	}, nil
}

// charge adds an MR of length bytes to the pinned pages, or refuses it
// as ib_umem_get would.
func (p *Provider) charge(length int) error {
	pages := (uint64(length) + pageSize - 1) / pageSize
	p.pins.mu.Lock()
	defer p.pins.mu.Unlock()
	if p.pins.limited && !p.capIPCLock() {
		if p.pins.limit == 0 {
			return verbs.Errorf("ibv_reg_mr", errEPERM, "RLIMIT_MEMLOCK is 0 and the process lacks CAP_IPC_LOCK")
		}
		if p.pins.pages+pages > p.pins.limit/pageSize {
			return verbs.Errorf("ibv_reg_mr", errENOMEM, "%d pinned pages plus %d would pass RLIMIT_MEMLOCK (%d bytes)", p.pins.pages, pages, p.pins.limit)
		}
	}
	p.pins.pages += pages
	return nil
}

// uncharge gives back a deregistered MR's pages.
func (p *Provider) uncharge(length int) {
	pages := (uint64(length) + pageSize - 1) / pageSize
	p.pins.mu.Lock()
	p.pins.pages -= min(pages, p.pins.pages)
	p.pins.mu.Unlock()
}

// capIPCLock is Options.CapIPCLock, or the process's own capability.
func (p *Provider) capIPCLock() bool {
	if p.opts.CapIPCLock != nil {
		return p.opts.CapIPCLock()
	}
	return verbs.HasCapIPCLock()
}
