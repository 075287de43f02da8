package verbs

import (
	"fmt"
	"net/netip"
)

// QPType is enum ibv_qp_type.
type QPType int

const (
	QPTRC QPType = 2
	QPTUC QPType = 3
	QPTUD QPType = 4
)

func (t QPType) String() string {
	switch t {
	case QPTRC:
		return "IBV_QPT_RC"
	case QPTUC:
		return "IBV_QPT_UC"
	case QPTUD:
		return "IBV_QPT_UD"
	}
	return "IBV_QPT_?"
}

// QPCap is struct ibv_qp_cap.
type QPCap struct {
	MaxSendWR, MaxRecvWR, MaxSendSGE, MaxRecvSGE, MaxInlineData uint32
}

// QPInitAttr is struct ibv_qp_init_attr.
type QPInitAttr struct {
	SendCQ, RecvCQ CQ
	// SRQ is init_attr.srq: the QP takes its RECVs from it (nil: a
	// receive queue of its own, Cap.MaxRecvWR deep).
	SRQ    SRQ
	Type   QPType
	Cap    QPCap
	SigAll bool
}

// QPAttr is the part of struct ibv_qp_attr that ibv_query_qp returns,
// ibv_modify_qp takes and rdma_init_qp_attr fills in. Which fields matter
// in a call is said by the accompanying QPAttrMask.
type QPAttr struct {
	State          QPState
	PKeyIndex      uint16 // pkey_index
	AH             AHAttr // ah_attr: the address vector (IBV_QP_AV)
	PathMTU        int    // bytes
	DestQPNum      uint32
	RQPSN, SQPSN   uint32
	QKey           uint32
	AccessFlags    Access // qp_access_flags
	MaxRdAtomic    uint8  // initiator depth
	MaxDestRdAtom  uint8  // responder resources
	MinRNRTimer    uint8
	Timeout        uint8
	RetryCnt       uint8
	RNRRetry       uint8
	PortNum        uint8
	Cap            QPCap
	OutstandingSQ  int // WRs posted to the send queue and not yet completed
	OutstandingRQ  int // RECVs posted and not yet consumed
	OutstandingSet bool
}

// AHAttr is struct ibv_ah_attr with its struct ibv_global_route (grh):
// where the QP's packets go. Over RoCE every packet carries a GRH, so
// IsGlobal is set and DGID is the peer's GID (an IPv4-mapped address for
// RoCE v2 over IPv4); DLID is unused (0).
type AHAttr struct {
	DGID         netip.Addr // grh.dgid
	FlowLabel    uint32     // grh.flow_label
	SGIDIndex    uint8      // grh.sgid_index: which local GID is the source
	HopLimit     uint8      // grh.hop_limit
	TrafficClass uint8      // grh.traffic_class
	DLID         uint16     // dlid
	SL           uint8      // sl
	SrcPathBits  uint8      // src_path_bits
	StaticRate   uint8      // static_rate
	IsGlobal     bool       // is_global
	PortNum      uint8      // port_num
}

// String prints the AV as C designated initialisers, short.
func (a AHAttr) String() string {
	dgid := "::"
	if a.DGID.IsValid() {
		dgid = a.DGID.String()
	}
	g := 0
	if a.IsGlobal {
		g = 1
	}
	return fmt.Sprintf("{is_global=%d, grh={dgid=%s, sgid_index=%d, hop_limit=%d, traffic_class=%d, flow_label=%d}, dlid=%d, sl=%d, port_num=%d}",
		g, dgid, a.SGIDIndex, a.HopLimit, a.TrafficClass, a.FlowLabel, a.DLID, a.SL, a.PortNum)
}

// QP is struct ibv_qp.
type QP interface {
	Num() uint32
	Type() QPType
	// PostSend is ibv_post_send (one WR at a time: the tour never chains).
	PostSend(wr SendWR) error
	// PostRecv is ibv_post_recv.
	PostRecv(wr RecvWR) error
	// Query is ibv_query_qp.
	Query() (QPAttr, error)
	// Modify is ibv_modify_qp(qp, &attr, mask). The transition and the
	// mask are checked as the kernel does (ib_modify_qp_is_ok): a missing
	// required attribute or one not allowed in that transition is EINVAL.
	Modify(attr QPAttr, mask QPAttrMask) error
	// Destroy is ibv_destroy_qp, for QPs made with Device.CreateQP. A QP
	// made with rdma_create_qp belongs to its CM id: Destroy refuses it
	// with EINVAL (use CMID.DestroyQP, rdma_destroy_qp).
	Destroy() error
}
