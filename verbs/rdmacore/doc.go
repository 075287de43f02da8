// Package rdmacore is the real backend of rdmatour: the verbs API over
// libibverbs and librdmacm through cgo.
//
// The libraries are loaded with dlopen when Open is called, not linked, so a
// binary built with this package starts on a machine without rdma-core and
// can fall back to the simulated NIC. Building needs only Go and a C
// compiler: abi.h declares the part of the rdma-core ABI the shim uses (no
// libibverbs-dev/librdmacm-dev), checked against the real headers by
// verbs/rdmacore/buildcheck. Elsewhere than Linux with cgo the package
// compiles to a stub whose Open says why real verbs are unavailable.
package rdmacore

import "errors"

// ErrUnavailable is wrapped by Open's error in a binary without real verbs
// (built with CGO_ENABLED=0, or not for Linux): only the simulated NIC.
// doctor recognises it by the words "need Linux and cgo", which every
// such error contains.
var ErrUnavailable = errors.New("real verbs need Linux and cgo")

// Library names Open loads.
const (
	VerbsLibrary = "libibverbs.so.1"
	CMLibrary    = "librdmacm.so.1"
)
