// Package rdmacore is the real backend of rdmatour: the verbs API over
// libibverbs and librdmacm through cgo.
//
// The libraries are loaded with dlopen when Open is called, not linked, so a
// binary built with this package starts on a machine without rdma-core and
// can fall back to the simulated NIC. Only the headers (libibverbs-dev,
// librdmacm-dev) are needed to build. Elsewhere than Linux with cgo the
// package compiles to a stub whose Open says why real verbs are unavailable.
package rdmacore

// Library names Open loads.
const (
	VerbsLibrary = "libibverbs.so.1"
	CMLibrary    = "librdmacm.so.1"
)
