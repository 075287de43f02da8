//go:build !(linux && cgo)

package rdmacore

import (
	"errors"

	"github.com/rdmatour/rdmatour/verbs"
)

// ErrUnavailable is what Open returns on this platform.
var ErrUnavailable = errors.New("rdmacore: real verbs need Linux and cgo (this binary was built without them); use the simulated NIC")

// Provider is never returned on this platform.
type Provider struct{ verbs.Provider }

// Open reports that real verbs are not available in this build.
func Open() (*Provider, error) { return nil, ErrUnavailable }
