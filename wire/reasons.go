package wire

import (
	"fmt"
	"time"
)

// rejectReasons are the REJ's reason codes by the kernel's names (enum
// ib_cm_rej_reason, include/rdma/ib_cm.h; IBA vol. 1 table 112). rdma_cm
// hands the code to the application as the status of
// RDMA_CM_EVENT_REJECTED on InfiniBand and RoCE.
var rejectReasons = map[uint16]string{
	1: "IB_CM_REJ_NO_QP", 2: "IB_CM_REJ_NO_EEC", 3: "IB_CM_REJ_NO_RESOURCES", 4: "IB_CM_REJ_TIMEOUT",
	5: "IB_CM_REJ_UNSUPPORTED", 6: "IB_CM_REJ_INVALID_COMM_ID", 7: "IB_CM_REJ_INVALID_COMM_INSTANCE",
	8: "IB_CM_REJ_INVALID_SERVICE_ID", 9: "IB_CM_REJ_INVALID_TRANSPORT_TYPE", 10: "IB_CM_REJ_STALE_CONN",
	11: "IB_CM_REJ_RDC_NOT_EXIST", 12: "IB_CM_REJ_INVALID_GID", 13: "IB_CM_REJ_INVALID_LID",
	14: "IB_CM_REJ_INVALID_SL", 15: "IB_CM_REJ_INVALID_TRAFFIC_CLASS", 16: "IB_CM_REJ_INVALID_HOP_LIMIT",
	17: "IB_CM_REJ_INVALID_PACKET_RATE", 18: "IB_CM_REJ_INVALID_ALT_GID", 19: "IB_CM_REJ_INVALID_ALT_LID",
	20: "IB_CM_REJ_INVALID_ALT_SL", 21: "IB_CM_REJ_INVALID_ALT_TRAFFIC_CLASS", 22: "IB_CM_REJ_INVALID_ALT_HOP_LIMIT",
	23: "IB_CM_REJ_INVALID_ALT_PACKET_RATE", 24: "IB_CM_REJ_PORT_CM_REDIRECT", 25: "IB_CM_REJ_PORT_REDIRECT",
	26: "IB_CM_REJ_INVALID_MTU", 27: "IB_CM_REJ_INSUFFICIENT_RESP_RESOURCES", 28: "IB_CM_REJ_CONSUMER_DEFINED",
	29: "IB_CM_REJ_INVALID_RNR_RETRY", 30: "IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID", 31: "IB_CM_REJ_INVALID_CLASS_VERSION",
	32: "IB_CM_REJ_INVALID_FLOW_LABEL", 33: "IB_CM_REJ_INVALID_ALT_FLOW_LABEL", 35: "IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED",
}

// RejectReasonName is the kernel's name of a REJ reason code, and
// whether the code has one.
func RejectReasonName(reason uint16) (string, bool) {
	n, ok := rejectReasons[reason]
	if !ok {
		return fmt.Sprintf("reason %d", reason), false
	}
	return n, true
}

// rnrTimerMicros is IBA vol. 1 table 45 (rxe's rnrnak_usec in
// rxe_comp.c): the wait each 5-bit RNR timer code stands for, in µs. 0
// is the longest.
var rnrTimerMicros = [32]uint32{
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920,
	122880, 163840, 245760, 327680, 491520,
}

// RNRTimer is the wait an RNR NAK asks for (its low five bits), and
// whether s is an RNR NAK at all.
func (s Syndrome) RNRTimer() (time.Duration, bool) {
	if s>>5 != 1 {
		return 0, false
	}
	return time.Duration(rnrTimerMicros[s&0x1F]) * time.Microsecond, true
}
