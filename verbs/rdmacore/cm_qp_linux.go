//go:build linux && cgo

package rdmacore

// The QP of a CM id: rdma_create_qp and rdma_destroy_qp.

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"github.com/rdmatour/rdmatour/verbs"
	"syscall"
)

// CreateQP is rdma_create_qp: the QP comes back in INIT.
func (c *cmID) CreateQP(pdi verbs.PD, attr verbs.QPInitAttr) (verbs.QP, error) {
	pd, scq, rcq, err := qpParts("rdma_create_qp", pdi, &attr)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id == nil {
		return nil, errDestroyed("rdma_create_qp", "rdma_cm_id")
	}
	if c.qp != nil {
		return nil, &verbs.Error{Func: "rdma_create_qp", Errno: syscall.EEXIST, Detail: "the id already has a QP"}
	}
	pd.mu.Lock()
	defer pd.mu.Unlock()
	if pd.pd == nil {
		return nil, errDestroyed("rdma_create_qp", "pd")
	}
	scq.mu.RLock()
	defer scq.mu.RUnlock()
	if scq != rcq {
		rcq.mu.RLock()
		defer rcq.mu.RUnlock()
	}
	if scq.cq == nil || rcq.cq == nil {
		return nil, errDestroyed("rdma_create_qp", "cq")
	}
	ia := initAttr(scq, rcq, attr)
	if rc, err := C.rt_create_qp(c.p.rt, c.id, pd.pd, &ia); rc != 0 {
		return nil, cErr("rdma_create_qp", err, fmt.Sprintf("%s max_send_wr %d max_recv_wr %d", attr.Type, attr.Cap.MaxSendWR, attr.Cap.MaxRecvWR))
	}
	q := newQueuePair(c.p, C.rt_id_qp(c.id), attr.Type, pd, scq, rcq)
	q.holdSRQ(attr.SRQ)
	c.qp = q
	return q, nil
}

func (c *cmID) QP() verbs.QP {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.qp == nil {
		return nil
	}
	return c.qp
}

// DestroyQP is rdma_destroy_qp.
func (c *cmID) DestroyQP() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id == nil {
		return errDestroyed("rdma_destroy_qp", "rdma_cm_id")
	}
	if c.qp == nil {
		return &verbs.Error{Func: "rdma_destroy_qp", Errno: syscall.EINVAL, Detail: "the id has no QP"}
	}
	c.destroyQPLocked()
	return nil
}

func (c *cmID) destroyQPLocked() {
	q := c.qp
	q.mu.Lock() // waits for posts and queries in flight
	C.rt_destroy_qp(c.p.rt, c.id)
	q.qp = nil
	q.mu.Unlock()
	c.qp = nil
	q.release()
}
