//go:build linux && cgo

package rdmacore

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"net/netip"
	"sync"
	"syscall"
	"unsafe"

	"github.com/rdmatour/rdmatour/verbs"
)

// Unreliable datagram: address handles (ibv_create_ah), SEND with wr.ud,
// and event->param.ud.

// addrHandle is an ibv_ah; it holds its PD until destroyed.
type addrHandle struct {
	p    *Provider
	pd   *protDomain
	attr verbs.AHAttr

	mu sync.Mutex
	ah *C.struct_ibv_ah // nil once destroyed
}

var (
	_ verbs.AH      = (*addrHandle)(nil)
	_ verbs.AHMaker = (*protDomain)(nil)
)

// CreateAH is ibv_create_ah.
func (d *protDomain) CreateAH(attr verbs.AHAttr) (verbs.AH, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pd == nil {
		return nil, errDestroyed("ibv_create_ah", "pd")
	}
	in := ahToC(attr)
	var errno C.int
	ah := C.rt_create_ah(d.p.rt, d.pd, &in, &errno)
	if ah == nil {
		return nil, &verbs.Error{Func: "ibv_create_ah", Errno: syscall.Errno(errno), Detail: attr.String()}
	}
	d.users++
	d.p.count(func(c *verbs.ResourceCount) { c.AHs++ })
	return &addrHandle{p: d.p, pd: d, attr: attr, ah: ah}, nil
}

var _ verbs.AHFromWCMaker = (*protDomain)(nil)

// CreateAHFromWC is ibv_create_ah_from_wc: grh is the first 40 bytes of
// the datagram's receive buffer.
func (d *protDomain) CreateAHFromWC(wc verbs.WC, grh []byte, portNum uint8) (verbs.AH, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pd == nil {
		return nil, errDestroyed("ibv_create_ah_from_wc", "pd")
	}
	g := C.CBytes(grh[:verbs.GRHLen])
	defer C.free(g)
	hasGRH := C.int(0)
	if wc.HasGRH {
		hasGRH = 1
	}
	var out C.struct_rt_ah_attr
	var errno C.int
	ah := C.rt_create_ah_from_wc(d.p.rt, d.pd, hasGRH, C.uint32_t(wc.SrcQP), C.uint32_t(wc.QPNum), g, C.uint8_t(portNum), &out, &errno)
	if ah == nil {
		return nil, &verbs.Error{Func: "ibv_create_ah_from_wc", Errno: syscall.Errno(errno), Detail: fmt.Sprintf("src_qp 0x%x, port %d", wc.SrcQP, portNum)}
	}
	d.users++
	d.p.count(func(c *verbs.ResourceCount) { c.AHs++ })
	return &addrHandle{p: d.p, pd: d, attr: ahFromC(&out), ah: ah}, nil
}

func (a *addrHandle) Attr() verbs.AHAttr { return a.attr }

// Destroy is ibv_destroy_ah.
func (a *addrHandle) Destroy() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ah == nil {
		return errDestroyed("ibv_destroy_ah", "ah")
	}
	if rc := C.rt_destroy_ah(a.p.rt, a.ah); rc != 0 {
		return &verbs.Error{Func: "ibv_destroy_ah", Errno: syscall.Errno(rc)}
	}
	a.ah = nil
	a.pd.mu.Lock()
	a.pd.users--
	a.pd.mu.Unlock()
	a.p.count(func(c *verbs.ResourceCount) { c.AHs-- })
	return nil
}

// postSendUD is ibv_post_send on a UD QP: wr.ud names the address
// handle, the remote QPN and the Q_Key. q.mu is held (read).
func (q *queuePair) postSendUD(wr verbs.SendWR, sges *C.struct_ibv_sge) error {
	a, ok := wr.UD.AH.(*addrHandle)
	if !ok || a == nil {
		return verbs.Errorf("ibv_post_send", syscall.EINVAL, "wr.ud.ah is not an address handle of this device")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ah == nil {
		return errDestroyed("ibv_post_send", "ah")
	}
	rc := C.rt_post_send_ud(q.qp, C.uint64_t(wr.WRID), C.int(wr.Opcode), C.uint(wr.Flags),
		sges, C.int(len(wr.SGList)), a.ah, C.uint32_t(wr.UD.RemoteQPN), C.uint32_t(wr.UD.RemoteQKey),
		C.uint32_t(wr.ImmData))
	if rc != 0 {
		return rcErr("ibv_post_send", rc, fmt.Sprintf("%s wr_id %d on a UD QP", wr.Opcode, wr.WRID))
	}
	return nil
}

func ahToC(a verbs.AHAttr) C.struct_rt_ah_attr {
	var o C.struct_rt_ah_attr
	if a.DGID.IsValid() {
		for i, b := range a.DGID.As16() {
			o.dgid[i] = C.uint8_t(b)
		}
	}
	o.flow_label = C.uint32_t(a.FlowLabel)
	o.sgid_index = C.uint8_t(a.SGIDIndex)
	o.hop_limit = C.uint8_t(a.HopLimit)
	o.traffic_class = C.uint8_t(a.TrafficClass)
	o.dlid = C.uint16_t(a.DLID)
	o.sl = C.uint8_t(a.SL)
	o.src_path_bits = C.uint8_t(a.SrcPathBits)
	o.static_rate = C.uint8_t(a.StaticRate)
	if a.IsGlobal {
		o.is_global = 1
	}
	o.port_num = C.uint8_t(a.PortNum)
	return o
}

func ahFromC(o *C.struct_rt_ah_attr) verbs.AHAttr {
	raw := C.GoBytes(unsafe.Pointer(&o.dgid[0]), 16)
	return verbs.AHAttr{DGID: netip.AddrFrom16([16]byte(raw)), FlowLabel: uint32(o.flow_label),
		SGIDIndex: uint8(o.sgid_index), HopLimit: uint8(o.hop_limit), TrafficClass: uint8(o.traffic_class),
		DLID: uint16(o.dlid), SL: uint8(o.sl), SrcPathBits: uint8(o.src_path_bits),
		StaticRate: uint8(o.static_rate), IsGlobal: o.is_global != 0, PortNum: uint8(o.port_num)}
}

// udParam is event->param.ud as rt_copy_ud copied it.
func udParam(ev *C.struct_rt_event) verbs.UDParam {
	return verbs.UDParam{AHAttr: ahFromC(&ev.ud_ah), QPNum: uint32(ev.ud_qp_num), QKey: uint32(ev.ud_qkey)}
}
