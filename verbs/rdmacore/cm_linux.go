//go:build linux && cgo

package rdmacore

/*
#include <stdlib.h>
#include <errno.h>
#include <sys/socket.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"net/netip"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/rdmatour/rdmatour/verbs"
)

// cmID is an rdma_cm_id.
type cmID struct {
	p  *Provider
	ch *eventChannel

	mu sync.Mutex
	id *C.struct_rdma_cm_id // nil once destroyed
	qp *queuePair
}

var _ verbs.CMID = (*cmID)(nil)

// sockaddr fills ss from a netip.AddrPort; an invalid address means the
// IPv4 wildcard.
func sockaddr(ss *C.struct_sockaddr_storage, ap netip.AddrPort) {
	a := ap.Addr().Unmap()
	if !a.IsValid() {
		a = netip.IPv4Unspecified()
	}
	if a.Is4() {
		b := a.As4()
		C.rt_make_sa(ss, C.AF_INET, (*C.uint8_t)(unsafe.Pointer(&b[0])), C.uint16_t(ap.Port()))
		return
	}
	b := a.As16()
	C.rt_make_sa(ss, C.AF_INET6, (*C.uint8_t)(unsafe.Pointer(&b[0])), C.uint16_t(ap.Port()))
}

func readAddr(sa *C.struct_sockaddr) netip.AddrPort {
	var raw [16]byte
	var port C.uint16_t
	switch C.rt_read_sa(sa, (*C.uint8_t)(unsafe.Pointer(&raw[0])), &port) {
	case C.AF_INET:
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(raw[:4])), uint16(port))
	case C.AF_INET6:
		return netip.AddrPortFrom(netip.AddrFrom16(raw), uint16(port))
	}
	return netip.AddrPort{}
}

// do runs f with the live C id, or fails with fn's name when destroyed.
func (c *cmID) do(fn string, f func(id *C.struct_rdma_cm_id) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id == nil {
		return errDestroyed(fn, "rdma_cm_id")
	}
	return f(c.id)
}

func (c *cmID) BindAddr(addr netip.AddrPort) error {
	return c.do("rdma_bind_addr", func(id *C.struct_rdma_cm_id) error {
		var ss C.struct_sockaddr_storage
		sockaddr(&ss, addr)
		if rc, err := C.rt_bind_addr(c.p.rt, id, &ss); rc != 0 {
			return cErr("rdma_bind_addr", err, addr.String())
		}
		return nil
	})
}

func (c *cmID) Listen(backlog int) error {
	return c.do("rdma_listen", func(id *C.struct_rdma_cm_id) error {
		if rc, err := C.rt_listen(c.p.rt, id, C.int(backlog)); rc != 0 {
			return cErr("rdma_listen", err, "")
		}
		return nil
	})
}

func ms(d time.Duration) C.int {
	m := d.Milliseconds()
	if m <= 0 {
		m = 2000
	}
	if m > 1<<30 {
		m = 1 << 30
	}
	return C.int(m)
}

func (c *cmID) ResolveAddr(src, dst netip.AddrPort, timeout time.Duration) error {
	return c.do("rdma_resolve_addr", func(id *C.struct_rdma_cm_id) error {
		var s, d C.struct_sockaddr_storage
		sockaddr(&d, dst)
		sp := (*C.struct_sockaddr_storage)(nil)
		if src.Addr().IsValid() {
			sockaddr(&s, src)
			sp = &s
		}
		if rc, err := C.rt_resolve_addr(c.p.rt, id, sp, &d, ms(timeout)); rc != 0 {
			return cErr("rdma_resolve_addr", err, dst.String())
		}
		return nil
	})
}

func (c *cmID) ResolveRoute(timeout time.Duration) error {
	return c.do("rdma_resolve_route", func(id *C.struct_rdma_cm_id) error {
		if rc, err := C.rt_resolve_route(c.p.rt, id, ms(timeout)); rc != 0 {
			return cErr("rdma_resolve_route", err, "")
		}
		return nil
	})
}

// connParam fills a C rdma_conn_param; the returned func frees the copy of
// the private data (librdmacm copies it during the call).
func connParam(fn string, p verbs.ConnParam) (C.struct_rdma_conn_param, func(), error) {
	var cp C.struct_rdma_conn_param
	if len(p.PrivateData) > 255 {
		return cp, func() {}, &verbs.Error{Func: fn, Errno: syscall.EINVAL,
			Detail: fmt.Sprintf("private_data_len %d does not fit in uint8_t", len(p.PrivateData))}
	}
	free := func() {}
	if len(p.PrivateData) > 0 {
		mem := C.CBytes(p.PrivateData)
		cp.private_data = mem
		cp.private_data_len = C.uint8_t(len(p.PrivateData))
		free = func() { C.free(mem) }
	}
	cp.responder_resources = C.uint8_t(p.ResponderResources)
	cp.initiator_depth = C.uint8_t(p.InitiatorDepth)
	cp.flow_control = C.uint8_t(p.FlowControl)
	cp.retry_count = C.uint8_t(p.RetryCount)
	cp.rnr_retry_count = C.uint8_t(p.RNRRetryCount)
	cp.qp_num = C.uint32_t(p.QPNum)
	return cp, free, nil
}

func (c *cmID) Connect(p verbs.ConnParam) error {
	return c.do("rdma_connect", func(id *C.struct_rdma_cm_id) error {
		cp, free, err := connParam("rdma_connect", p)
		defer free()
		if err != nil {
			return err
		}
		if rc, err := C.rt_connect(c.p.rt, id, &cp); rc != 0 {
			return cErr("rdma_connect", err, fmt.Sprintf("private_data_len %d", len(p.PrivateData)))
		}
		return nil
	})
}

func (c *cmID) Accept(p verbs.ConnParam) error {
	return c.do("rdma_accept", func(id *C.struct_rdma_cm_id) error {
		cp, free, err := connParam("rdma_accept", p)
		defer free()
		if err != nil {
			return err
		}
		if rc, err := C.rt_accept(c.p.rt, id, &cp); rc != 0 {
			return cErr("rdma_accept", err, fmt.Sprintf("private_data_len %d", len(p.PrivateData)))
		}
		return nil
	})
}

func (c *cmID) Reject(privateData []byte) error {
	return c.do("rdma_reject", func(id *C.struct_rdma_cm_id) error {
		if len(privateData) > 255 {
			return &verbs.Error{Func: "rdma_reject", Errno: syscall.EINVAL, Detail: "private data too long"}
		}
		var mem unsafe.Pointer
		if len(privateData) > 0 {
			mem = C.CBytes(privateData)
			defer C.free(mem)
		}
		if rc, err := C.rt_reject(c.p.rt, id, mem, C.uint8_t(len(privateData))); rc != 0 {
			return cErr("rdma_reject", err, "")
		}
		return nil
	})
}

func (c *cmID) Disconnect() error {
	return c.do("rdma_disconnect", func(id *C.struct_rdma_cm_id) error {
		if rc, err := C.rt_disconnect(c.p.rt, id); rc != 0 {
			return cErr("rdma_disconnect", err, "")
		}
		return nil
	})
}

func (c *cmID) Device() verbs.Device {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id == nil {
		return nil
	}
	d := c.p.deviceFor(C.rt_id_verbs(c.id))
	if d == nil {
		return nil // a nil *device must not become a non-nil interface
	}
	return d
}

func (c *cmID) PortNum() uint8 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id == nil {
		return 0
	}
	return uint8(C.rt_id_port(c.id))
}

func (c *cmID) LocalAddr() netip.AddrPort {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id == nil {
		return netip.AddrPort{}
	}
	return readAddr(C.rt_local_addr(c.id))
}

func (c *cmID) PeerAddr() netip.AddrPort {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id == nil {
		return netip.AddrPort{}
	}
	return readAddr(C.rt_peer_addr(c.id))
}

// Destroy is rdma_destroy_id (after rdma_destroy_qp if the id still has a
// QP, as librdmacm requires).
func (c *cmID) Destroy() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id == nil {
		return errDestroyed("rdma_destroy_id", "rdma_cm_id")
	}
	if c.qp != nil {
		c.destroyQPLocked()
	}
	id := c.id
	if rc, err := C.rt_destroy_id(c.p.rt, id); rc != 0 {
		return cErr("rdma_destroy_id", err, "")
	}
	c.id = nil
	c.p.mu.Lock()
	delete(c.p.ids, id)
	c.p.live.IDs--
	c.p.mu.Unlock()
	c.ch.ids.Add(-1)
	return nil
}
