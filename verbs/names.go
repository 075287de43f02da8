package verbs

import "fmt"

// WCStatus is enum ibv_wc_status. String() prints exactly what
// ibv_wc_status_str prints, so a learner can search for the text they see.
type WCStatus int

const (
	WCSuccess WCStatus = iota
	WCLocLenErr
	WCLocQPOpErr
	WCLocEECOpErr
	WCLocProtErr
	WCWRFlushErr
	WCMWBindErr
	WCBadRespErr
	WCLocAccessErr
	WCRemInvReqErr
	WCRemAccessErr
	WCRemOpErr
	WCRetryExcErr
	WCRNRRetryExcErr
	WCLocRDDViolErr
	WCRemInvRDReqErr
	WCRemAbortErr
	WCInvEECNErr
	WCInvEECStateErr
	WCFatalErr
	WCRespTimeoutErr
	WCGeneralErr
	WCTMErr
	WCTMRndvIncomplete
)

// wcStatusStrings is copied from libibverbs (verified against
// ibv_wc_status_str in rdma-core 44, Debian 12).
var wcStatusStrings = [...]string{
	"success",
	"local length error",
	"local QP operation error",
	"local EE context operation error",
	"local protection error",
	"Work Request Flushed Error",
	"memory management operation error",
	"bad response error",
	"local access error",
	"remote invalid request error",
	"remote access error",
	"remote operation error",
	"transport retry counter exceeded",
	"RNR retry counter exceeded",
	"local RDD violation error",
	"remote invalid RD request",
	"aborted error",
	"invalid EE context number",
	"invalid EE context state",
	"fatal error",
	"response timeout error",
	"general error",
	"TM error",
	"TM software rendezvous",
}

func (s WCStatus) String() string {
	if s >= 0 && int(s) < len(wcStatusStrings) {
		return wcStatusStrings[s]
	}
	return "unknown"
}

// CName is the C enumerator, e.g. IBV_WC_REM_ACCESS_ERR.
func (s WCStatus) CName() string {
	names := [...]string{"IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR",
		"IBV_WC_LOC_EEC_OP_ERR", "IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR",
		"IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR", "IBV_WC_LOC_ACCESS_ERR",
		"IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_OP_ERR",
		"IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR",
		"IBV_WC_REM_INV_RD_REQ_ERR", "IBV_WC_REM_ABORT_ERR", "IBV_WC_INV_EECN_ERR",
		"IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR", "IBV_WC_RESP_TIMEOUT_ERR",
		"IBV_WC_GENERAL_ERR", "IBV_WC_TM_ERR", "IBV_WC_TM_RNDV_INCOMPLETE"}
	if s >= 0 && int(s) < len(names) {
		return names[s]
	}
	return fmt.Sprintf("IBV_WC_STATUS(%d)", int(s))
}

// WCOpcode is enum ibv_wc_opcode. libibverbs has no string function for it;
// String() prints the C enumerator.
type WCOpcode int

const (
	WCSend            WCOpcode = 0
	WCRDMAWrite       WCOpcode = 1
	WCRDMARead        WCOpcode = 2
	WCCompSwap        WCOpcode = 3
	WCFetchAdd        WCOpcode = 4
	WCBindMW          WCOpcode = 5
	WCLocalInv        WCOpcode = 6
	WCTSO             WCOpcode = 7
	WCRecv            WCOpcode = 1 << 7
	WCRecvRDMAWithImm WCOpcode = WCRecv + 1
)

func (o WCOpcode) String() string {
	switch o {
	case WCSend:
		return "IBV_WC_SEND"
	case WCRDMAWrite:
		return "IBV_WC_RDMA_WRITE"
	case WCRDMARead:
		return "IBV_WC_RDMA_READ"
	case WCCompSwap:
		return "IBV_WC_COMP_SWAP"
	case WCFetchAdd:
		return "IBV_WC_FETCH_ADD"
	case WCBindMW:
		return "IBV_WC_BIND_MW"
	case WCLocalInv:
		return "IBV_WC_LOCAL_INV"
	case WCTSO:
		return "IBV_WC_TSO"
	case WCRecv:
		return "IBV_WC_RECV"
	case WCRecvRDMAWithImm:
		return "IBV_WC_RECV_RDMA_WITH_IMM"
	}
	return fmt.Sprintf("IBV_WC_OPCODE(%d)", int(o))
}

// WROpcode is enum ibv_wr_opcode.
type WROpcode int

const (
	WRRDMAWrite        WROpcode = 0
	WRRDMAWriteWithImm WROpcode = 1
	WRSend             WROpcode = 2
	WRSendWithImm      WROpcode = 3
	WRRDMARead         WROpcode = 4
	// WRAtomicCmpAndSwp and WRAtomicFetchAndAdd act on 8 bytes at
	// wr.atomic.remote_addr (8-byte aligned, REMOTE_ATOMIC) and write the
	// value found there into the local SGE.
	WRAtomicCmpAndSwp   WROpcode = 5
	WRAtomicFetchAndAdd WROpcode = 6
)

func (o WROpcode) String() string {
	switch o {
	case WRRDMAWrite:
		return "IBV_WR_RDMA_WRITE"
	case WRRDMAWriteWithImm:
		return "IBV_WR_RDMA_WRITE_WITH_IMM"
	case WRSend:
		return "IBV_WR_SEND"
	case WRSendWithImm:
		return "IBV_WR_SEND_WITH_IMM"
	case WRRDMARead:
		return "IBV_WR_RDMA_READ"
	case WRAtomicCmpAndSwp:
		return "IBV_WR_ATOMIC_CMP_AND_SWP"
	case WRAtomicFetchAndAdd:
		return "IBV_WR_ATOMIC_FETCH_AND_ADD"
	}
	return fmt.Sprintf("IBV_WR_OPCODE(%d)", int(o))
}

// CompletionOpcode is the opcode the requester's completion carries for a
// work request of this opcode.
func (o WROpcode) CompletionOpcode() WCOpcode {
	switch o {
	case WRRDMAWrite, WRRDMAWriteWithImm:
		return WCRDMAWrite
	case WRRDMARead:
		return WCRDMARead
	case WRAtomicCmpAndSwp:
		return WCCompSwap
	case WRAtomicFetchAndAdd:
		return WCFetchAdd
	}
	return WCSend
}

// IsAtomic says whether the WR is one of the two atomics.
func (o WROpcode) IsAtomic() bool { return o == WRAtomicCmpAndSwp || o == WRAtomicFetchAndAdd }

// ReadsRemote says whether the responder sends data back (READ and the
// atomics): these use the responder's resources and the requester's
// initiator depth (max_rd_atomic / max_dest_rd_atomic).
func (o WROpcode) ReadsRemote() bool { return o == WRRDMARead || o.IsAtomic() }

// AtomicCap is enum ibv_atomic_cap (ibv_device_attr.atomic_cap).
type AtomicCap int

const (
	AtomicNone AtomicCap = 0 // IBV_ATOMIC_NONE: no atomic operations
	AtomicHCA  AtomicCap = 1 // IBV_ATOMIC_HCA: atomic among this device's QPs
	AtomicGlob AtomicCap = 2 // IBV_ATOMIC_GLOB: atomic also against the CPU and other devices
)

func (c AtomicCap) String() string {
	switch c {
	case AtomicNone:
		return "IBV_ATOMIC_NONE"
	case AtomicHCA:
		return "IBV_ATOMIC_HCA"
	case AtomicGlob:
		return "IBV_ATOMIC_GLOB"
	}
	return fmt.Sprintf("IBV_ATOMIC_CAP(%d)", int(c))
}

// QPState is enum ibv_qp_state.
type QPState int

const (
	QPSReset QPState = iota
	QPSInit
	QPSRTR
	QPSRTS
	QPSSQD
	QPSSQE
	QPSErr
	QPSUnknown
)

// String prints the short state name used on state diagrams (RESET, INIT, ...).
func (s QPState) String() string {
	names := [...]string{"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR", "UNKNOWN"}
	if s >= 0 && int(s) < len(names) {
		return names[s]
	}
	return fmt.Sprintf("QPS(%d)", int(s))
}

// CName is the C enumerator, e.g. IBV_QPS_RTS.
func (s QPState) CName() string { return "IBV_QPS_" + s.String() }

// PortState is enum ibv_port_state; String matches ibv_port_state_str.
type PortState int

const (
	PortNOP PortState = iota
	PortDown
	PortInit
	PortArmed
	PortActive
	PortActiveDefer
)

func (s PortState) String() string {
	names := [...]string{"no state change (NOP)", "down", "init", "armed", "active", "active defer"}
	if s >= 0 && int(s) < len(names) {
		return names[s]
	}
	return "unknown"
}

// CMEventType is enum rdma_cm_event_type; String matches rdma_event_str.
type CMEventType int

const (
	EventAddrResolved CMEventType = iota
	EventAddrError
	EventRouteResolved
	EventRouteError
	EventConnectRequest
	EventConnectResponse
	EventConnectError
	EventUnreachable
	EventRejected
	EventEstablished
	EventDisconnected
	EventDeviceRemoval
	EventMulticastJoin
	EventMulticastError
	EventAddrChange
	EventTimewaitExit
)

func (t CMEventType) String() string {
	names := [...]string{
		"RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED", "RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED", "RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED", "RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN", "RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE", "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	}
	if t >= 0 && int(t) < len(names) {
		return names[t]
	}
	return "UNKNOWN EVENT"
}

// Access is enum ibv_access_flags (the subset the tour uses).
type Access uint32

const (
	AccessLocalWrite   Access = 1
	AccessRemoteWrite  Access = 2
	AccessRemoteRead   Access = 4
	AccessRemoteAtomic Access = 8
)

// String prints the flags as C would be written: IBV_ACCESS_LOCAL_WRITE | ...
func (a Access) String() string {
	if a == 0 {
		return "0"
	}
	var out string
	add := func(flag Access, name string) {
		if a&flag != 0 {
			if out != "" {
				out += " | "
			}
			out += name
		}
	}
	add(AccessLocalWrite, "IBV_ACCESS_LOCAL_WRITE")
	add(AccessRemoteWrite, "IBV_ACCESS_REMOTE_WRITE")
	add(AccessRemoteRead, "IBV_ACCESS_REMOTE_READ")
	add(AccessRemoteAtomic, "IBV_ACCESS_REMOTE_ATOMIC")
	if rest := a &^ (AccessLocalWrite | AccessRemoteWrite | AccessRemoteRead | AccessRemoteAtomic); rest != 0 {
		if out != "" {
			out += " | "
		}
		out += fmt.Sprintf("0x%x", uint32(rest))
	}
	return out
}

// Short prints the flags compactly for tables: "LW RW RR".
func (a Access) Short() string {
	out := ""
	for _, f := range []struct {
		flag Access
		name string
	}{{AccessLocalWrite, "LW"}, {AccessRemoteWrite, "RW"}, {AccessRemoteRead, "RR"}, {AccessRemoteAtomic, "RA"}} {
		if a&f.flag != 0 {
			if out != "" {
				out += " "
			}
			out += f.name
		}
	}
	if out == "" {
		return "-"
	}
	return out
}

// SendFlags is enum ibv_send_flags.
type SendFlags uint32

const (
	SendFence     SendFlags = 1
	SendSignaled  SendFlags = 2
	SendSolicited SendFlags = 4
	SendInline    SendFlags = 8
)

func (f SendFlags) String() string {
	if f == 0 {
		return "0"
	}
	out := ""
	for _, x := range []struct {
		flag SendFlags
		name string
	}{{SendFence, "IBV_SEND_FENCE"}, {SendSignaled, "IBV_SEND_SIGNALED"}, {SendSolicited, "IBV_SEND_SOLICITED"}, {SendInline, "IBV_SEND_INLINE"}} {
		if f&x.flag != 0 {
			if out != "" {
				out += " | "
			}
			out += x.name
		}
	}
	return out
}
