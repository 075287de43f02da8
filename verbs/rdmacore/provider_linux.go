//go:build linux && cgo

package rdmacore

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"github.com/rdmatour/rdmatour/verbs"
)

// LoadError says which library could not be loaded and what to install.
type LoadError struct {
	Library string // "librdmacm.so.1"
	Package string // what provides it
	Cause   error  // dlopen's message
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("%s not found: install %s (%v)", e.Library, e.Package, e.Cause)
}

func (e *LoadError) Unwrap() error { return e.Cause }

// Provider is verbs.Provider over the real libibverbs and librdmacm.
type Provider struct {
	rt *C.struct_rt

	mu   sync.Mutex
	ids  map[*C.struct_rdma_cm_id]*cmID
	devs map[*C.struct_ibv_context]*device
	live verbs.ResourceCount

	sysfs string // /sys/class/infiniband

	captures captures // the real wire, once Capture is called
}

var _ verbs.Provider = (*Provider)(nil)

// Open loads libibverbs.so.1 and librdmacm.so.1 and resolves every function
// the backend calls. It fails (with a *LoadError) when rdma-core is not
// installed; it succeeds on a machine without RDMA devices, where Devices
// returns an empty list.
func Open() (*Provider, error) {
	return openWith(VerbsLibrary, CMLibrary)
}

func openWith(verbsLib, cmLib string) (*Provider, error) {
	cv := C.CString(verbsLib)
	defer C.free(unsafe.Pointer(cv))
	cc := C.CString(cmLib)
	defer C.free(unsafe.Pointer(cc))
	var errbuf [512]C.char
	var which C.int
	rt := C.rt_open(cv, cc, &errbuf[0], C.size_t(len(errbuf)), &which)
	if rt == nil {
		cause := errors.New(C.GoString(&errbuf[0]))
		switch which {
		case 1:
			return nil, &LoadError{Library: verbsLib, Package: "rdma-core / libibverbs1", Cause: cause}
		case 2:
			return nil, &LoadError{Library: cmLib, Package: "rdma-core / librdmacm1", Cause: cause}
		}
		return nil, fmt.Errorf("rdmacore: %w (rdma-core too old?)", cause)
	}
	return &Provider{
		rt:    rt,
		ids:   map[*C.struct_rdma_cm_id]*cmID{},
		devs:  map[*C.struct_ibv_context]*device{},
		sysfs: "/sys/class/infiniband",
	}, nil
}

// Name is "rdma".
func (p *Provider) Name() string { return "rdma" }

// Simulated is false: this is real verbs.
func (p *Provider) Simulated() bool { return false }

// Live counts the objects still allocated through this provider.
func (p *Provider) Live() verbs.ResourceCount {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}

func (p *Provider) count(f func(*verbs.ResourceCount)) {
	p.mu.Lock()
	f(&p.live)
	p.mu.Unlock()
}

// WCStatusStr is libibverbs' own ibv_wc_status_str(status).
func (p *Provider) WCStatusStr(status int) string {
	return C.GoString(C.rt_wc_status_str(p.rt, C.int(status)))
}

// EventStr is librdmacm's own rdma_event_str(event).
func (p *Provider) EventStr(event int) string {
	return C.GoString(C.rt_event_str(p.rt, C.int(event)))
}

// errnoOf turns cgo's errno result into a syscall.Errno (0 if none).
func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}

// cErr builds the error for a failed C call that set errno.
func cErr(fn string, err error, detail string) error {
	return &verbs.Error{Func: fn, Errno: errnoOf(err), Detail: detail}
}

// rcErr builds the error for a C call that returns an errno value
// (positive, or negative for some providers).
func rcErr(fn string, rc C.int, detail string) error {
	n := int(rc)
	if n < 0 {
		n = -n
	}
	return &verbs.Error{Func: fn, Errno: syscall.Errno(n), Detail: detail}
}
