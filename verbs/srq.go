package verbs

// SRQAttr is struct ibv_srq_attr: how many RECVs the SRQ holds, how many
// SGEs each may have, and its limit (the low-water mark that arms
// IBV_EVENT_SRQ_LIMIT_REACHED; 0 = not armed).
type SRQAttr struct {
	MaxWR, MaxSGE, Limit uint32
}

// SRQ is struct ibv_srq: one receive queue that the RC QPs created with
// it (QPInitAttr.SRQ) all take their RECVs from, instead of each its own.
// A server with many clients posts its RECVs once, sized for the traffic
// of all of them, not max_recv_wr times the number of clients.
type SRQ interface {
	// PostRecv is ibv_post_srq_recv.
	PostRecv(wr RecvWR) error
	// Query is ibv_query_srq: max_wr as the device granted it, max_sge,
	// and the limit (0 once the limit event has fired: it disarms).
	Query() (SRQAttr, error)
	// Arm is ibv_modify_srq(srq, &(struct ibv_srq_attr){.srq_limit =
	// limit}, IBV_SRQ_LIMIT): once fewer than limit RECVs remain in the
	// SRQ, the device raises IBV_EVENT_SRQ_LIMIT_REACHED, once.
	Arm(limit uint32) error
	// LimitEvents is how many IBV_EVENT_SRQ_LIMIT_REACHED events for this
	// SRQ have come so far: it reads the device's asynchronous events
	// without waiting (ibv_get_async_event on a non-blocking async_fd,
	// then ibv_ack_async_event).
	LimitEvents() (int, error)
	// Destroy is ibv_destroy_srq (EBUSY while a QP uses it).
	Destroy() error
}
