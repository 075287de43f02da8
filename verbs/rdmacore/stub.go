//go:build !(linux && cgo)

package rdmacore

import (
	"runtime"

	"github.com/rdmatour/rdmatour/verbs"
)

// Provider is never returned in this build.
type Provider struct{ verbs.Provider }

// Open says why this binary has no real verbs and what would give it them.
func Open() (*Provider, error) { return nil, unavailable(runtime.GOOS) }

// unavailableError is ErrUnavailable with the reason for this build.
type unavailableError struct{ msg string }

func (e *unavailableError) Error() string { return e.msg }
func (e *unavailableError) Unwrap() error { return ErrUnavailable }

func unavailable(goos string) error {
	if goos != "linux" {
		return &unavailableError{"this rdmatour runs on " + goos + ", and real verbs need Linux and cgo: " +
			"it has only the simulated NIC"}
	}
	return &unavailableError{"this rdmatour was built without cgo, and real verbs need Linux and cgo: " +
		"it has only the simulated NIC; for real RDMA rebuild it with CGO_ENABLED=1 and a C compiler (gcc)"}
}
