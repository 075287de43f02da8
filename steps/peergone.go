package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// explainPeerGone turns "transport retry counter exceeded" into what
// happened when the CM says the peer disconnected: it quit (rdma_disconnect
// or its teardown sent a DREQ), its QP dropped the request, and this side's
// NIC retried until retry_count ran out (on Soft-RoCE about 2.5 s later).
// Any other error passes through unchanged. The completion stays wrapped,
// so a lesson expecting it still matches.
func (s *Session) explainPeerGone(ctx context.Context, err error) error {
	var ce *CompletionError
	if !errors.As(err, &ce) || ce.WC.Status != verbs.WCRetryExcErr {
		return err
	}
	// The peer's DREQ came long before the retries ran out; give its event
	// a moment in case the CM thread has not queued it yet (slow guests).
	if !s.peerHungUp() && s.checkPeerGoneWithin(ctx, 250*time.Millisecond) == nil {
		return err // the peer is still there as far as the CM knows
	}
	wr := strings.TrimSuffix(ce.What, " completion")
	peer, peerZH := "client", "client"
	if s.cfg.Role == Client {
		peer, peerZH = "server", "server"
	}
	return &Problem{Err: err, quiet: true,
		What: text.Text{
			EN: fmt.Sprintf("the %s has gone (it disconnected); the %s was retried until retry_count ran out: status %q (wr_id %d)",
				peer, wr, ce.WC.Status.String(), ce.WC.WRID),
			ZH: fmt.Sprintf("%s 已经离开（它断开了连接）；%s 一直重试到 retry_count 用完：状态 %q（wr_id %d）",
				peerZH, wr, ce.WC.Status.String(), ce.WC.WRID)},
		Fix: text.Text{EN: "start both sides again", ZH: "两端都重新启动"}}
}

// peerLeftEarly is the error of a wait the peer ended by disconnecting
// (event got, with status) before the tour was over.
func peerLeftEarly(got verbs.CMEventType, status int) error {
	return problem(&CMEventError{Got: got, Want: -1, Status: status}, text.Text{EN: "the peer disconnected before finishing the tour", ZH: "对端在完成之前就断开了"},
		text.Text{EN: "start both sides again", ZH: "两端都重新启动"})
}
