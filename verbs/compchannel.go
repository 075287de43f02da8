package verbs

import (
	"context"
	"fmt"
)

// CompChannelDevice is a device that can make completion channels. Both
// backends' devices are; an interface of its own keeps Device's fakes in
// tests small.
type CompChannelDevice interface {
	// CreateCompChannel is ibv_create_comp_channel.
	CreateCompChannel() (CompChannel, error)
}

// CompChannel is struct ibv_comp_channel: where a CQ armed with
// ibv_req_notify_cq delivers one event for its next completion. The
// order a program must keep, and the one a lost wake-up breaks:
// arm, poll until empty, wait for the event, ack it, arm again, and
// only then poll (drain) — a completion that lands between a poll that
// found nothing and the arm raises no event, because arming only
// watches completions still to come.
type CompChannel interface {
	// CreateCQ is ibv_create_cq(ctx, cqe, NULL, channel, 0).
	CreateCQ(cqe int) (NotifyCQ, error)
	// GetCQEvent is ibv_get_cq_event: it blocks until an armed CQ of
	// this channel has had a completion, and returns that CQ; ctx.Err()
	// when ctx ends first. The event must be acked (NotifyCQ.AckEvents)
	// before the CQ can be destroyed.
	GetCQEvent(ctx context.Context) (NotifyCQ, error)
	// FD is channel->fd (-1 for the simulated NIC).
	FD() int
	// Destroy is ibv_destroy_comp_channel: EBUSY while a CQ uses it.
	Destroy() error
}

// NotifyCQ is a CQ made on a completion channel.
type NotifyCQ interface {
	CQ
	// ReqNotify is ibv_req_notify_cq(cq, solicited_only): the next
	// completion (solicited_only: the next solicited one) raises one
	// event on the channel. Completions already in the CQ raise none.
	ReqNotify(solicitedOnly bool) error
	// AckEvents is ibv_ack_cq_events(cq, n).
	AckEvents(n int)
	// Unacked is how many events GetCQEvent returned for this CQ that
	// AckEvents has not acked (rdma-core keeps the count in
	// cq->comp_events_completed; ibv_destroy_cq waits for it).
	Unacked() int
}

// UnackedCQEventsDetail is what both backends say when ibv_destroy_cq is
// asked to destroy a CQ with events not acked: rdma-core would wait for
// the acks forever (ibv_destroy_cq sleeps until comp_events_completed
// reaches what the kernel reported), so rdmatour refuses instead.
func UnackedCQEventsDetail(n int) string {
	return fmt.Sprintf("%d CQ events not acked with ibv_ack_cq_events: ibv_destroy_cq would wait for them forever", n)
}
