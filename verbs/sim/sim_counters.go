package sim

// The device's hw_counters: rxe's names, counted per device and per QP.

import "github.com/rdmatour/rdmatour/verbs"

// Counter indices; names are rxe's hw_counters where they apply.
const (
	cntSentPkts = iota
	cntRcvdPkts
	cntRDMASends
	cntRDMARecvs
	cntRcvdRNRErr
	cntSendRNRErr
	cntRetryExceeded
	cntRetryRNRExceeded
	cntRcvdSeqErr
	cntDuplicateRequest
	cntOutOfSeqRequest
	cntCompleterRetryErr
	cntSendErr // never moves: the simulated wire cannot fail to send (qp_complete.go errorOut)
	numCounters
)

var counterNames = [numCounters]string{
	"sent_pkts", "rcvd_pkts", "rdma_sends", "rdma_recvs", "rcvd_rnr_err",
	"send_rnr_err", "retry_exceeded_err", "retry_rnr_exceeded_err",
	"rcvd_seq_err", "duplicate_request", "out_of_seq_request",
	"completer_retry_err", "send_err",
}

func (d *device) count(i int) { d.counters[i].Add(1) }

// Counters returns the device's hw_counters.
func (d *device) Counters(port uint8) (map[string]uint64, error) {
	if port != 1 {
		return nil, verbs.Errorf("ibv_query_port", errEINVAL, "port %d does not exist", port)
	}
	m := make(map[string]uint64, numCounters)
	for i, n := range counterNames {
		m[n] = d.counters[i].Load()
	}
	return m, nil
}

// QPCounters implements verbs.QPCounterReader: the hw_counters of one
// QP, counted where the device counts them (a demo's two sides share the
// device, and each has its own QP).
func (d *device) QPCounters(qpNum uint32) (map[string]uint64, error) {
	q := d.qpByNum(qpNum)
	if q == nil {
		return nil, verbs.Errorf("rdma statistic qp", errEINVAL, "QP 0x%x does not exist", qpNum)
	}
	m := make(map[string]uint64, numCounters)
	for i, n := range counterNames {
		m[n] = q.counters[i].Load()
	}
	return m, nil
}
