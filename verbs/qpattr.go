package verbs

// The attribute mask of ibv_modify_qp and the path-MTU encoding: the
// vocabulary of the manual QP track, apart from the types it fills.

import "fmt"

// QPAttrMask is enum ibv_qp_attr_mask: which fields of a QPAttr an
// ibv_modify_qp call sets (or rdma_init_qp_attr filled in).
type QPAttrMask uint32

// The values are those of <infiniband/verbs.h>.
const (
	QPAttrState            QPAttrMask = 1 << 0  // IBV_QP_STATE
	QPAttrCurState         QPAttrMask = 1 << 1  // IBV_QP_CUR_STATE
	QPAttrEnSQDAsyncNotify QPAttrMask = 1 << 2  // IBV_QP_EN_SQD_ASYNC_NOTIFY
	QPAttrAccessFlags      QPAttrMask = 1 << 3  // IBV_QP_ACCESS_FLAGS
	QPAttrPKeyIndex        QPAttrMask = 1 << 4  // IBV_QP_PKEY_INDEX
	QPAttrPort             QPAttrMask = 1 << 5  // IBV_QP_PORT
	QPAttrQKey             QPAttrMask = 1 << 6  // IBV_QP_QKEY
	QPAttrAV               QPAttrMask = 1 << 7  // IBV_QP_AV
	QPAttrPathMTU          QPAttrMask = 1 << 8  // IBV_QP_PATH_MTU
	QPAttrTimeout          QPAttrMask = 1 << 9  // IBV_QP_TIMEOUT
	QPAttrRetryCnt         QPAttrMask = 1 << 10 // IBV_QP_RETRY_CNT
	QPAttrRNRRetry         QPAttrMask = 1 << 11 // IBV_QP_RNR_RETRY
	QPAttrRQPSN            QPAttrMask = 1 << 12 // IBV_QP_RQ_PSN
	QPAttrMaxQPRdAtomic    QPAttrMask = 1 << 13 // IBV_QP_MAX_QP_RD_ATOMIC
	QPAttrAltPath          QPAttrMask = 1 << 14 // IBV_QP_ALT_PATH
	QPAttrMinRNRTimer      QPAttrMask = 1 << 15 // IBV_QP_MIN_RNR_TIMER
	QPAttrSQPSN            QPAttrMask = 1 << 16 // IBV_QP_SQ_PSN
	QPAttrMaxDestRdAtomic  QPAttrMask = 1 << 17 // IBV_QP_MAX_DEST_RD_ATOMIC
	QPAttrPathMigState     QPAttrMask = 1 << 18 // IBV_QP_PATH_MIG_STATE
	QPAttrCap              QPAttrMask = 1 << 19 // IBV_QP_CAP
	QPAttrDestQPN          QPAttrMask = 1 << 20 // IBV_QP_DEST_QPN
	QPAttrRateLimit        QPAttrMask = 1 << 25 // IBV_QP_RATE_LIMIT
)

var qpAttrMaskNames = []struct {
	bit  QPAttrMask
	name string
}{
	{QPAttrState, "IBV_QP_STATE"}, {QPAttrCurState, "IBV_QP_CUR_STATE"},
	{QPAttrEnSQDAsyncNotify, "IBV_QP_EN_SQD_ASYNC_NOTIFY"}, {QPAttrAccessFlags, "IBV_QP_ACCESS_FLAGS"},
	{QPAttrPKeyIndex, "IBV_QP_PKEY_INDEX"}, {QPAttrPort, "IBV_QP_PORT"}, {QPAttrQKey, "IBV_QP_QKEY"},
	{QPAttrAV, "IBV_QP_AV"}, {QPAttrPathMTU, "IBV_QP_PATH_MTU"}, {QPAttrTimeout, "IBV_QP_TIMEOUT"},
	{QPAttrRetryCnt, "IBV_QP_RETRY_CNT"}, {QPAttrRNRRetry, "IBV_QP_RNR_RETRY"}, {QPAttrRQPSN, "IBV_QP_RQ_PSN"},
	{QPAttrMaxQPRdAtomic, "IBV_QP_MAX_QP_RD_ATOMIC"}, {QPAttrAltPath, "IBV_QP_ALT_PATH"},
	{QPAttrMinRNRTimer, "IBV_QP_MIN_RNR_TIMER"}, {QPAttrSQPSN, "IBV_QP_SQ_PSN"},
	{QPAttrMaxDestRdAtomic, "IBV_QP_MAX_DEST_RD_ATOMIC"}, {QPAttrPathMigState, "IBV_QP_PATH_MIG_STATE"},
	{QPAttrCap, "IBV_QP_CAP"}, {QPAttrDestQPN, "IBV_QP_DEST_QPN"}, {QPAttrRateLimit, "IBV_QP_RATE_LIMIT"},
}

// String prints the mask as C: "IBV_QP_STATE | IBV_QP_PKEY_INDEX | ...",
// in bit order; unknown bits as hex; 0 as "0".
func (m QPAttrMask) String() string {
	if m == 0 {
		return "0"
	}
	var out string
	rest := m
	for _, n := range qpAttrMaskNames {
		if m&n.bit != 0 {
			if out != "" {
				out += " | "
			}
			out += n.name
			rest &^= n.bit
		}
	}
	if rest != 0 {
		if out != "" {
			out += " | "
		}
		out += fmt.Sprintf("0x%x", uint32(rest))
	}
	return out
}

// rcTransitions is the IBA's QP state table for RC, as the kernel's
// ib_modify_qp_is_ok (core/verbs.c, qp_state_table) has it: the
// attributes a transition requires and those it may also carry.
var rcTransitions = map[[2]QPState][2]QPAttrMask{
	{QPSReset, QPSReset}: {},
	{QPSReset, QPSInit}:  {QPAttrPKeyIndex | QPAttrPort | QPAttrAccessFlags, 0},
	{QPSInit, QPSInit}:   {0, QPAttrPKeyIndex | QPAttrPort | QPAttrAccessFlags},
	{QPSInit, QPSRTR}: {
		QPAttrAV | QPAttrPathMTU | QPAttrDestQPN | QPAttrRQPSN | QPAttrMaxDestRdAtomic | QPAttrMinRNRTimer,
		QPAttrAltPath | QPAttrAccessFlags | QPAttrPKeyIndex,
	},
	{QPSRTR, QPSRTS}: {
		QPAttrSQPSN | QPAttrTimeout | QPAttrRetryCnt | QPAttrRNRRetry | QPAttrMaxQPRdAtomic,
		QPAttrCurState | QPAttrAltPath | QPAttrAccessFlags | QPAttrMinRNRTimer | QPAttrPathMigState,
	},
	{QPSRTS, QPSRTS}: {0, QPAttrCurState | QPAttrAccessFlags | QPAttrAltPath | QPAttrPathMigState | QPAttrMinRNRTimer},
}

// RCTransition is what ibv_modify_qp of an RC QP from cur to next
// requires besides IBV_QP_STATE (req) and what it may also take (opt);
// ok is false for a transition the table lacks. Any state goes to RESET
// or ERR with IBV_QP_STATE alone.
func RCTransition(cur, next QPState) (req, opt QPAttrMask, ok bool) {
	if next == QPSReset || next == QPSErr {
		return 0, 0, true
	}
	t, ok := rcTransitions[[2]QPState{cur, next}]
	return t[0], t[1], ok
}

// MTUEnum is enum ibv_mtu for a path MTU in bytes (IBV_MTU_256 = 1 ...
// IBV_MTU_4096 = 5); 0 for a size that is not an IB MTU.
func MTUEnum(bytes int) int {
	for e, b := 1, 256; e <= 5; e, b = e+1, b*2 {
		if b == bytes {
			return e
		}
	}
	return 0
}

// MTUName is "IBV_MTU_1024" etc. for a path MTU in bytes.
func MTUName(bytes int) string {
	if MTUEnum(bytes) == 0 {
		return fmt.Sprintf("IBV_MTU_?(%d)", bytes)
	}
	return fmt.Sprintf("IBV_MTU_%d", bytes)
}
