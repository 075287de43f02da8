package verbs

import (
	"os"
	"strconv"
	"strings"
)

// PinLimiter is a provider that can hold ibv_reg_mr to a smaller
// RLIMIT_MEMLOCK, as setrlimit(2) does for the whole process: the kernel
// charges every MR's pages to the process (ib_umem_get adds them to
// mm->pinned_vm) and refuses a registration that would pass the limit —
// ENOMEM, or EPERM when the limit is 0 — unless the process has
// CAP_IPC_LOCK. The memlock lesson lowers the limit through it.
type PinLimiter interface {
	// LimitPinning sets the soft RLIMIT_MEMLOCK to soft bytes; restore
	// puts the old limit back.
	LimitPinning(soft uint64) (restore func() error, err error)
}

// capIPCLock is CAP_IPC_LOCK's bit in the capability sets
// (include/uapi/linux/capability.h).
const capIPCLock = 14

// HasCapIPCLock reports whether this process's effective capabilities
// hold CAP_IPC_LOCK (root's do), which lifts RLIMIT_MEMLOCK for pinned
// memory: ib_umem_get refuses only "if (new_pinned > lock_limit &&
// !capable(CAP_IPC_LOCK))". Where /proc/self/status cannot say (not
// Linux), it reports false.
func HasCapIPCLock() bool {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	return capEffHas(string(status), capIPCLock)
}

// capEffHas reads the CapEff line of a /proc/PID/status text.
func capEffHas(status string, bit uint) bool {
	for line := range strings.SplitSeq(status, "\n") {
		hex, ok := strings.CutPrefix(line, "CapEff:")
		if !ok {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		return err == nil && v&(1<<bit) != 0
	}
	return false
}
