// Package verbs is the Go face of libibverbs + librdmacm that rdmatour's
// tour is written against. It mirrors the C API closely (one method per C
// call, the same argument names) so that every step on screen maps 1:1 onto
// the C a learner would write. Two backends implement it: verbs/rdmacore
// (cgo over the real libraries) and verbs/sim (a simulated RNIC in pure Go).
//
// Memory that a NIC may access (MRs) is owned by the backend, never by the Go
// heap; callers reach it only through MR.Read and MR.Write, which keeps every
// access bounds-checked and free of data races with the (simulated) NIC.
package verbs

import (
	"context"
	"net/netip"
	"time"
)

// Provider is one backend. It is the only thing cmd/ knows about: steps and
// the TUI see nothing but this package's interfaces.
type Provider interface {
	// Name is "rdma" for real verbs, "sim" for the simulated NIC.
	Name() string
	// Simulated says whether this provider is the simulated NIC; the UI must
	// say so on screen.
	Simulated() bool
	// Devices lists the RDMA devices this provider sees (ibv_get_device_list
	// + ibv_query_device/port).
	Devices() ([]DeviceInfo, error)
	// CreateEventChannel is rdma_create_event_channel.
	CreateEventChannel() (EventChannel, error)
	// Live counts every resource still allocated through this provider (ids,
	// PDs, CQs, QPs, MRs, channels), so tests can assert a clean teardown.
	Live() ResourceCount
}

// ResourceCount is how many objects of each kind are alive.
type ResourceCount struct {
	EventChannels, IDs, PDs, CQs, QPs, MRs int
	AHs                                    int // address handles (UD)
	SRQs                                   int // shared receive queues (srq.go)
	CompChannels                           int // completion channels (ibv_create_comp_channel)
}

// Total sums all kinds.
func (r ResourceCount) Total() int {
	return r.EventChannels + r.IDs + r.PDs + r.CQs + r.QPs + r.MRs + r.AHs + r.SRQs + r.CompChannels
}

// PortSpace is enum rdma_port_space.
type PortSpace int

const (
	PSTCP PortSpace = 0x0106 // RDMA_PS_TCP: reliable connected, what the tour uses
	PSUDP PortSpace = 0x0111
)

func (p PortSpace) String() string {
	switch p {
	case PSTCP:
		return "RDMA_PS_TCP"
	case PSUDP:
		return "RDMA_PS_UDP"
	}
	return "RDMA_PS_?"
}

// EventChannel is struct rdma_event_channel.
type EventChannel interface {
	// CreateID is rdma_create_id(channel, &id, NULL, ps).
	CreateID(ps PortSpace) (CMID, error)
	// GetEvent is rdma_get_cm_event followed by rdma_ack_cm_event: the event
	// is copied out (private data included) and acked before it is returned,
	// so no event can leak. It returns ctx.Err() when ctx ends first.
	GetEvent(ctx context.Context) (CMEvent, error)
	// FD is the channel's file descriptor (-1 for the simulated NIC).
	FD() int
	// Destroy is rdma_destroy_event_channel.
	Destroy() error
}

// ConnParam is struct rdma_conn_param.
type ConnParam struct {
	PrivateData        []byte
	ResponderResources uint8
	InitiatorDepth     uint8
	RetryCount         uint8 // transport retries (0..7)
	RNRRetryCount      uint8 // RNR NAK retries (0..7, 7 = retry forever)
	FlowControl        uint8
	// QPNum is rdma_conn_param.qp_num: the QP number put in the REQ (on
	// rdma_connect) or the REP (on rdma_accept) when the id has no QP of
	// its own (the QP was made with ibv_create_qp and is driven through
	// RESET -> INIT -> RTR -> RTS by the application). Ignored when the id
	// has a QP from rdma_create_qp: librdmacm then sends id->qp->qp_num.
	QPNum uint32
}

// Private-data limits of rdma_cm over InfiniBand/RoCE (IB CM REQ and REP,
// minus the 36-byte rdma_cm header on REQ). Exceeding them makes
// rdma_connect / rdma_accept fail with EINVAL.
const (
	MaxConnectPrivateData = 56
	MaxAcceptPrivateData  = 196
	MaxRejectPrivateData  = 148
)

// CMEvent is a copy of struct rdma_cm_event.
type CMEvent struct {
	Type   CMEventType
	Status int // event->status: errno (negative) or IB CM reject reason
	// ID is event->id: the listener's new child id on CONNECT_REQUEST,
	// otherwise the id the event is about.
	ID CMID
	// ListenID is event->listen_id on CONNECT_REQUEST.
	ListenID CMID
	// PrivateData is event->param.conn.private_data, copied. Over IB/RoCE
	// the kernel pads it to the full CM message size (56 or 196 bytes).
	PrivateData        []byte
	ResponderResources uint8
	InitiatorDepth     uint8
	RNRRetryCount      uint8
	QPNum              uint32 // event->param.conn.qp_num
	// UD is event->param.ud, set on events of an RDMA_PS_UDP id.
	UD UDParam
}

// CMID is struct rdma_cm_id.
type CMID interface {
	// BindAddr is rdma_bind_addr.
	BindAddr(addr netip.AddrPort) error
	// Listen is rdma_listen.
	Listen(backlog int) error
	// ResolveAddr is rdma_resolve_addr; src may be the zero AddrPort.
	ResolveAddr(src, dst netip.AddrPort, timeout time.Duration) error
	// ResolveRoute is rdma_resolve_route.
	ResolveRoute(timeout time.Duration) error
	// Connect is rdma_connect.
	Connect(p ConnParam) error
	// Accept is rdma_accept.
	Accept(p ConnParam) error
	// Reject is rdma_reject.
	Reject(privateData []byte) error
	// Disconnect is rdma_disconnect (moves the QP to ERR, sends DREQ).
	Disconnect() error
	// Device is id->verbs: nil until the id is bound to a device (after
	// bind on a device address, resolve_addr, or on a CONNECT_REQUEST id).
	Device() Device
	// PortNum is id->port_num.
	PortNum() uint8
	// CreateQP is rdma_create_qp: creates the QP and, like librdmacm, moves
	// it to INIT. rdma_accept / the connect response move it to RTR and RTS.
	CreateQP(pd PD, attr QPInitAttr) (QP, error)
	// QP is id->qp (nil before CreateQP).
	QP() QP
	// DestroyQP is rdma_destroy_qp.
	DestroyQP() error
	// InitQPAttr is rdma_init_qp_attr(id, &attr, &mask) with
	// attr.qp_state = state on input: the attributes and the mask that
	// ibv_modify_qp needs to move a QP the application owns into state,
	// filled in from what the CM knows about this connection (port, P_Key,
	// the peer's QPN and starting PSN, path MTU, address vector, the
	// negotiated responder resources / initiator depth, retry counts).
	InitQPAttr(state QPState) (QPAttr, QPAttrMask, error)
	// Establish is rdma_establish: on the active side of an id that has no
	// QP, after RDMA_CM_EVENT_CONNECT_RESPONSE (and after the application
	// has moved its own QP to RTR and RTS), it sends the RTU that completes
	// the connection; the passive side then gets ESTABLISHED. It fails with
	// EINVAL on an id that has a QP (librdmacm does this itself there).
	Establish() error
	// LocalAddr and PeerAddr are rdma_get_local_addr / rdma_get_peer_addr.
	LocalAddr() netip.AddrPort
	PeerAddr() netip.AddrPort
	// Destroy is rdma_destroy_id.
	Destroy() error
}

// Device is struct ibv_context (an opened device).
type Device interface {
	Info() DeviceInfo
	// AllocPD is ibv_alloc_pd.
	AllocPD() (PD, error)
	// CreateCQ is ibv_create_cq(ctx, cqe, NULL, NULL, 0).
	CreateCQ(cqe int) (CQ, error)
	// CreateQP is ibv_create_qp(pd->context, &attr) with attr.pd = pd: a
	// QP in RESET that belongs to no CM id. The application moves it
	// through INIT, RTR and RTS with QP.Modify and frees it with
	// QP.Destroy (ibv_destroy_qp).
	CreateQP(pd PD, attr QPInitAttr) (QP, error)
	// QueryPort is ibv_query_port.
	QueryPort(port uint8) (PortAttr, error)
	// QueryGID is ibv_query_gid.
	QueryGID(port uint8, index int) (netip.Addr, error)
	// Counters reads the port's hardware counters (rxe's hw_counters in
	// sysfs; the simulated NIC keeps its own). Empty when the device has none.
	Counters(port uint8) (map[string]uint64, error)
}

// DeviceInfo describes a device and its ports (ibv_devinfo, short).
type DeviceInfo struct {
	Name      string // "rxe0", "mlx5_0", "sim0"
	Transport string // "InfiniBand" (also RoCE), TransportIWARP, "simulated"
	NodeGUID  string
	Netdevs   []string // the network interfaces the device sits on
	Ports     []PortAttr
	// MaxQPRdAtom is ibv_device_attr.max_qp_rd_atom: how many READs and
	// atomics one QP can serve at once as the responder (the ceiling of
	// responder_resources / max_dest_rd_atomic).
	MaxQPRdAtom int
	// MaxQPInitRdAtom is max_qp_init_rd_atom: how many one QP can have
	// outstanding as the requester (the ceiling of initiator_depth /
	// max_rd_atomic).
	MaxQPInitRdAtom int
	// AtomicCap is atomic_cap: IBV_ATOMIC_NONE means no atomics at all.
	AtomicCap AtomicCap
	// SendSlotsFreedOnPoll: a send queue slot frees only when a
	// completion of its WR or a later WR is polled, the spec's rule as
	// mlx5 has it (the simulated NIC's strict profile). False: it frees
	// when the WR completes, signaled or not, as rxe does (measured:
	// TestRxeSendQueueNeverSignaled); real devices report false.
	SendSlotsFreedOnPoll bool
}

// TransportIWARP is DeviceInfo.Transport of an IBV_TRANSPORT_IWARP device
// (siw, cxgb4, irdma in iWARP mode): RDMAP/DDP/MPA over TCP, RC only, no
// immediate data on siw, and a READ's sink needs REMOTE_WRITE.
const TransportIWARP = "iWARP"

// IsIWARP says the device's transport is iWARP: what decides which tours
// and notify modes can run, never the device's name.
func (i DeviceInfo) IsIWARP() bool { return i.Transport == TransportIWARP }

// PortAttr is the part of struct ibv_port_attr the tour shows.
type PortAttr struct {
	Num         uint8
	State       PortState
	ActiveMTU   int // bytes
	MaxMTU      int // bytes
	LinkLayer   string
	GIDs        []GIDEntry
	MaxMsgSize  uint32
	ActiveSpeed string
}

// GIDEntry is one populated GID table entry.
type GIDEntry struct {
	Index int
	GID   netip.Addr
	Type  string // "RoCE v2", "RoCE v1", "IB", ""
}

// PD is struct ibv_pd.
type PD interface {
	Handle() uint32
	// RegMR allocates page-aligned memory outside the Go heap
	// (posix_memalign / mmap), zeroes it and registers it: ibv_reg_mr.
	RegMR(length int, access Access) (MR, error)
	// CreateSRQ is ibv_create_srq(pd, &(struct ibv_srq_init_attr){.attr =
	// attr}) (srq.go).
	CreateSRQ(attr SRQAttr) (SRQ, error)
	// Dealloc is ibv_dealloc_pd.
	Dealloc() error
}

// MR is struct ibv_mr plus the memory it covers.
type MR interface {
	Addr() uint64 // mr->addr: the virtual address remote peers use
	Len() int
	LKey() uint32
	RKey() uint32
	Access() Access
	// Read copies n bytes at offset off (relative to Addr).
	Read(off, n int) ([]byte, error)
	// Write copies p into the MR at offset off, as the CPU would.
	Write(off int, p []byte) error
	// Dereg is ibv_dereg_mr; it also frees the memory.
	Dereg() error
}

// CQ is struct ibv_cq.
type CQ interface {
	// CQE is the depth the provider granted (cq->cqe, may exceed the request).
	CQE() int
	// Poll is ibv_poll_cq: never blocks, returns at most max completions.
	Poll(max int) ([]WC, error)
	// Destroy is ibv_destroy_cq.
	Destroy() error
}

// SGE is struct ibv_sge.
type SGE struct {
	Addr   uint64
	Length uint32
	LKey   uint32
}

// SendWR is struct ibv_send_wr (a single WR; next = NULL).
type SendWR struct {
	WRID       uint64
	Opcode     WROpcode
	SGList     []SGE
	Flags      SendFlags
	RemoteAddr uint64 // wr.rdma.remote_addr (wr.atomic.remote_addr for atomics)
	RKey       uint32 // wr.rdma.rkey (wr.atomic.rkey)
	// CompareAdd is wr.atomic.compare_add: the value to add
	// (FETCH_AND_ADD) or to compare with (CMP_AND_SWP); Swap is
	// wr.atomic.swap, stored when the comparison holds. Host order.
	CompareAdd uint64
	Swap       uint64
	// ImmData is the immediate value in host order; on the wire and in C
	// (imm_data is __be32) it is big-endian.
	ImmData uint32
	// UD is wr.ud: the address handle, QP number and Q_Key a SEND on a
	// UD QP goes to.
	UD UDDest
}

// RecvWR is struct ibv_recv_wr.
type RecvWR struct {
	WRID   uint64
	SGList []SGE
}

// WC is struct ibv_wc.
type WC struct {
	WRID      uint64
	Status    WCStatus
	Opcode    WCOpcode
	VendorErr uint32
	ByteLen   uint32
	ImmData   uint32 // host order; valid when HasImm
	HasImm    bool   // wc_flags & IBV_WC_WITH_IMM
	QPNum     uint32
	SrcQP     uint32
	HasGRH    bool // wc_flags & IBV_WC_GRH: a UD receive buffer starts with the GRH
}
