//go:build linux && cgo

package rdmacore

import (
	"golang.org/x/sys/unix"

	"github.com/rdmatour/rdmatour/verbs"
)

var _ verbs.PinLimiter = (*Provider)(nil)

// LimitPinning is setrlimit(RLIMIT_MEMLOCK) with rlim_cur = soft for this
// whole process (the hard limit stays): lowering a soft limit needs no
// privilege. The kernel, not this code, then refuses an ibv_reg_mr that
// would pin more (ib_umem_get) — unless the process has CAP_IPC_LOCK.
func (p *Provider) LimitPinning(soft uint64) (func() error, error) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &old); err != nil {
		return nil, &verbs.Error{Func: "getrlimit", Errno: errnoOf(err), Detail: "RLIMIT_MEMLOCK"}
	}
	lowered := unix.Rlimit{Cur: min(soft, old.Max), Max: old.Max}
	if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &lowered); err != nil {
		return nil, &verbs.Error{Func: "setrlimit", Errno: errnoOf(err), Detail: "RLIMIT_MEMLOCK"}
	}
	return func() error {
		if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &old); err != nil {
			return &verbs.Error{Func: "setrlimit", Errno: errnoOf(err), Detail: "RLIMIT_MEMLOCK, restoring the old limit"}
		}
		return nil
	}, nil
}
