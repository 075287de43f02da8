//go:build linux && cgo

package rdmacore

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"net/netip"
	"syscall"
	"unsafe"

	"github.com/rdmatour/rdmatour/verbs"
)

// The manual QP bring-up: ibv_create_qp, rdma_init_qp_attr, ibv_modify_qp,
// ibv_destroy_qp, rdma_establish.

func attrFromC(a *C.struct_rt_qp_attr) verbs.QPAttr {
	raw := C.GoBytes(unsafe.Pointer(&a.dgid[0]), 16)
	dgid := netip.AddrFrom16([16]byte(raw))
	return verbs.QPAttr{
		State:         verbs.QPState(a.qp_state),
		PKeyIndex:     uint16(a.pkey_index),
		PathMTU:       mtuToBytes(C.enum_ibv_mtu(a.path_mtu)),
		DestQPNum:     uint32(a.dest_qp_num),
		RQPSN:         uint32(a.rq_psn),
		SQPSN:         uint32(a.sq_psn),
		QKey:          uint32(a.qkey),
		AccessFlags:   verbs.Access(a.qp_access_flags),
		MaxRdAtomic:   uint8(a.max_rd_atomic),
		MaxDestRdAtom: uint8(a.max_dest_rd_atomic),
		MinRNRTimer:   uint8(a.min_rnr_timer),
		Timeout:       uint8(a.timeout),
		RetryCnt:      uint8(a.retry_cnt),
		RNRRetry:      uint8(a.rnr_retry),
		PortNum:       uint8(a.port_num),
		Cap: verbs.QPCap{
			MaxSendWR:     uint32(a.max_send_wr),
			MaxRecvWR:     uint32(a.max_recv_wr),
			MaxSendSGE:    uint32(a.max_send_sge),
			MaxRecvSGE:    uint32(a.max_recv_sge),
			MaxInlineData: uint32(a.max_inline_data),
		},
		AH: verbs.AHAttr{
			DGID:         dgid,
			FlowLabel:    uint32(a.flow_label),
			SGIDIndex:    uint8(a.sgid_index),
			HopLimit:     uint8(a.hop_limit),
			TrafficClass: uint8(a.traffic_class),
			DLID:         uint16(a.dlid),
			SL:           uint8(a.sl),
			SrcPathBits:  uint8(a.src_path_bits),
			StaticRate:   uint8(a.static_rate),
			IsGlobal:     a.is_global != 0,
			PortNum:      uint8(a.ah_port_num),
		},
	}
}

func attrToC(in verbs.QPAttr) C.struct_rt_qp_attr {
	var a C.struct_rt_qp_attr
	a.qp_state = C.int(in.State)
	a.path_mtu = C.int(verbs.MTUEnum(in.PathMTU))
	a.qkey = C.uint32_t(in.QKey)
	a.rq_psn = C.uint32_t(in.RQPSN)
	a.sq_psn = C.uint32_t(in.SQPSN)
	a.dest_qp_num = C.uint32_t(in.DestQPNum)
	a.qp_access_flags = C.uint32_t(in.AccessFlags)
	a.pkey_index = C.uint16_t(in.PKeyIndex)
	a.max_rd_atomic = C.uint8_t(in.MaxRdAtomic)
	a.max_dest_rd_atomic = C.uint8_t(in.MaxDestRdAtom)
	a.min_rnr_timer = C.uint8_t(in.MinRNRTimer)
	a.port_num = C.uint8_t(in.PortNum)
	a.timeout = C.uint8_t(in.Timeout)
	a.retry_cnt = C.uint8_t(in.RetryCnt)
	a.rnr_retry = C.uint8_t(in.RNRRetry)
	a.max_send_wr = C.uint32_t(in.Cap.MaxSendWR)
	a.max_recv_wr = C.uint32_t(in.Cap.MaxRecvWR)
	a.max_send_sge = C.uint32_t(in.Cap.MaxSendSGE)
	a.max_recv_sge = C.uint32_t(in.Cap.MaxRecvSGE)
	a.max_inline_data = C.uint32_t(in.Cap.MaxInlineData)
	if in.AH.DGID.IsValid() {
		g := in.AH.DGID.As16()
		for i, b := range g {
			a.dgid[i] = C.uint8_t(b)
		}
	}
	a.flow_label = C.uint32_t(in.AH.FlowLabel)
	a.sgid_index = C.uint8_t(in.AH.SGIDIndex)
	a.hop_limit = C.uint8_t(in.AH.HopLimit)
	a.traffic_class = C.uint8_t(in.AH.TrafficClass)
	a.dlid = C.uint16_t(in.AH.DLID)
	a.sl = C.uint8_t(in.AH.SL)
	a.src_path_bits = C.uint8_t(in.AH.SrcPathBits)
	a.static_rate = C.uint8_t(in.AH.StaticRate)
	if in.AH.IsGlobal {
		a.is_global = 1
	}
	a.ah_port_num = C.uint8_t(in.AH.PortNum)
	return a
}

// InitQPAttr is rdma_init_qp_attr with attr.qp_state = state on input.
func (c *cmID) InitQPAttr(state verbs.QPState) (verbs.QPAttr, verbs.QPAttrMask, error) {
	var out verbs.QPAttr
	var mask verbs.QPAttrMask
	err := c.do("rdma_init_qp_attr", func(id *C.struct_rdma_cm_id) error {
		var a C.struct_rt_qp_attr
		var m C.int
		if rc := C.rt_init_qp_attr(c.p.rt, id, C.int(state), &a, &m); rc != 0 {
			return rcErr("rdma_init_qp_attr", rc, "qp_state "+state.CName())
		}
		out, mask = attrFromC(&a), verbs.QPAttrMask(uint32(m))
		return nil
	})
	return out, mask, err
}

// Establish is rdma_establish.
func (c *cmID) Establish() error {
	return c.do("rdma_establish", func(id *C.struct_rdma_cm_id) error {
		if c.qp != nil {
			// librdmacm says EINVAL too; say why.
			return &verbs.Error{Func: "rdma_establish", Errno: syscall.EINVAL, Detail: "the id has a QP (rdma_create_qp): librdmacm sends the RTU itself"}
		}
		if rc := C.rt_establish(c.p.rt, id); rc != 0 {
			if rc == -C.ENOSYS {
				return &verbs.Error{Func: "rdma_establish", Errno: syscall.ENOSYS, Detail: "this librdmacm has no rdma_establish (rdma-core too old)"}
			}
			return rcErr("rdma_establish", rc, "")
		}
		return nil
	})
}

// CreateQP is ibv_create_qp: the QP starts in RESET and belongs to no id.
func (d *device) CreateQP(pdi verbs.PD, attr verbs.QPInitAttr) (verbs.QP, error) {
	const fn = "ibv_create_qp"
	pd, scq, rcq, err := qpParts(fn, pdi, &attr)
	if err != nil {
		return nil, err
	}
	pd.mu.Lock()
	defer pd.mu.Unlock()
	if pd.pd == nil {
		return nil, errDestroyed(fn, "pd")
	}
	if C.rt_pd_context(pd.pd) != d.ctx {
		return nil, &verbs.Error{Func: fn, Errno: syscall.EINVAL, Detail: "pd belongs to another device"}
	}
	scq.mu.RLock()
	defer scq.mu.RUnlock()
	if scq != rcq {
		rcq.mu.RLock()
		defer rcq.mu.RUnlock()
	}
	if scq.cq == nil || rcq.cq == nil {
		return nil, errDestroyed(fn, "cq")
	}
	ia := initAttr(scq, rcq, attr)
	qp, cerr := C.rt_ibv_create_qp(d.p.rt, pd.pd, &ia)
	if qp == nil {
		return nil, cErr(fn, cerr, fmt.Sprintf("%s max_send_wr %d max_recv_wr %d", attr.Type, attr.Cap.MaxSendWR, attr.Cap.MaxRecvWR))
	}
	q := newQueuePair(d.p, qp, attr.Type, pd, scq, rcq)
	q.manual = true
	q.holdSRQ(attr.SRQ)
	return q, nil
}

// Modify is ibv_modify_qp; the kernel checks the transition and the mask.
func (q *queuePair) Modify(attr verbs.QPAttr, mask verbs.QPAttrMask) error {
	if mask&verbs.QPAttrPathMTU != 0 && verbs.MTUEnum(attr.PathMTU) == 0 {
		return &verbs.Error{Func: "ibv_modify_qp", Errno: syscall.EINVAL, Detail: fmt.Sprintf("path_mtu %d bytes is not an IB MTU", attr.PathMTU)}
	}
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.qp == nil {
		return errDestroyed("ibv_modify_qp", "qp")
	}
	a := attrToC(attr)
	if rc := C.rt_modify_qp(q.p.rt, q.qp, &a, C.int(mask)); rc != 0 {
		return rcErr("ibv_modify_qp", rc, fmt.Sprintf("qp_state %s, mask %s", attr.State.CName(), mask))
	}
	return nil
}

// Destroy is ibv_destroy_qp for a QP made with Device.CreateQP.
func (q *queuePair) Destroy() error {
	const fn = "ibv_destroy_qp"
	if !q.manual {
		return &verbs.Error{Func: fn, Errno: syscall.EINVAL, Detail: "this QP belongs to an rdma_cm id (rdma_create_qp): use rdma_destroy_qp"}
	}
	q.mu.Lock()
	if q.qp == nil {
		q.mu.Unlock()
		return errDestroyed(fn, "qp")
	}
	if rc := C.rt_ibv_destroy_qp(q.p.rt, q.qp); rc != 0 {
		q.mu.Unlock()
		return rcErr(fn, rc, "")
	}
	q.qp = nil
	q.mu.Unlock()
	q.release()
	return nil
}
