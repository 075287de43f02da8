package verbs

// Unreliable datagram (UD): what a UD QP needs beyond the RC API. An
// address handle says where a datagram goes; every SEND names it with the
// peer's QP number and Q_Key; every receive buffer starts with the 40-byte
// GRH the NIC writes there.

import "syscall"

// GRHLen is the size of the Global Route Header a UD receive buffer
// starts with (struct ibv_grh): over RoCE every datagram has one, so the
// first 40 bytes of every RECV buffer on a UD QP are the GRH and the
// message follows it; wc.byte_len counts both.
const GRHLen = 40

// UDPQKey is RDMA_UDP_QKEY: the Q_Key rdma_cm gives every QP of an
// RDMA_PS_UDP id (the kernel's cma_set_qkey) and hands to the peer in the
// SIDR reply.
const UDPQKey uint32 = 0x01234567

// AH is struct ibv_ah: an address handle made with ibv_create_ah.
type AH interface {
	// Attr is the address vector the handle was made from.
	Attr() AHAttr
	// Destroy is ibv_destroy_ah.
	Destroy() error
}

// AHMaker is a PD that can make address handles (ibv_create_ah). Both
// backends' PDs implement it; use CreateAH.
type AHMaker interface {
	CreateAH(attr AHAttr) (AH, error)
}

// CreateAH is ibv_create_ah(pd, &attr).
func CreateAH(pd PD, attr AHAttr) (AH, error) {
	m, ok := pd.(AHMaker)
	if !ok {
		return nil, Errorf("ibv_create_ah", syscall.EOPNOTSUPP, "this backend has no address handles")
	}
	return m.CreateAH(attr)
}

// UD transport opcodes (IBA 9.2: transport UD = 011).
const (
	OpUDSendOnly        uint8 = 0x64 // UD SEND_ONLY: BTH + DETH + payload
	OpUDSendOnlyWithImm uint8 = 0x65 // UD SEND_ONLY_WITH_IMMEDIATE
)

// UDDest is wr.ud of struct ibv_send_wr: where a SEND on a UD QP goes.
type UDDest struct {
	AH         AH     // wr.ud.ah
	RemoteQPN  uint32 // wr.ud.remote_qpn
	RemoteQKey uint32 // wr.ud.remote_qkey
}

// UDParam is event->param.ud of a CM event on an RDMA_PS_UDP id: on the
// active side's RDMA_CM_EVENT_ESTABLISHED, the address vector to the
// server and the server QP's number and Q_Key (from the SIDR reply).
type UDParam struct {
	AHAttr AHAttr // ah_attr: pass to ibv_create_ah
	QPNum  uint32 // qp_num
	QKey   uint32 // qkey
}

// AHFromWCMaker is a PD that can make an address handle back to the
// sender of a received datagram (ibv_create_ah_from_wc). Both backends'
// PDs implement it; use CreateAHFromWC.
type AHFromWCMaker interface {
	CreateAHFromWC(wc WC, grh []byte, portNum uint8) (AH, error)
}

// CreateAHFromWC is ibv_create_ah_from_wc(pd, &wc, grh, port_num): the
// address vector to whoever sent the datagram wc completed, read from
// the GRH at the start of its receive buffer (over RoCE v2 its last 20
// bytes are the packet's IPv4 header: the source address becomes the
// dgid, the TTL the hop limit). It is how a UD server answers a client
// it has no other address for; the reply goes to wc.SrcQP.
func CreateAHFromWC(pd PD, wc WC, grh []byte, portNum uint8) (AH, error) {
	m, ok := pd.(AHFromWCMaker)
	if !ok {
		return nil, Errorf("ibv_create_ah_from_wc", syscall.EOPNOTSUPP, "this backend has no address handles")
	}
	if len(grh) < GRHLen {
		return nil, Errorf("ibv_create_ah_from_wc", syscall.EINVAL, "the GRH is %d bytes, not %d", len(grh), GRHLen)
	}
	return m.CreateAHFromWC(wc, grh[:GRHLen], portNum)
}
