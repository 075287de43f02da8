package steps

import (
	"context"
	"fmt"
	"time"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The no-recv lesson's point is an RNR NAK: the client's SEND must reach
// the server while no RECV is posted. Run by two people, or as two --auto
// processes, nothing orders the server's late ibv_post_recv after that
// SEND; so the late post waits for evidence that the responder has
// already refused a SEND with an RNR NAK.
//
// The evidence is the device's responder counter: rxe counts every RNR
// NAK it sends in hw_counters/send_rnr_err (rxe_resp.c, RESPST_ERR_RNR),
// and the simulated NIC does the same. Without that counter, an outbound
// RNR NAK in the packets this side can see will do.

// rnrNAKCounter is rxe's (and the sim's) count of RNR NAKs sent.
const rnrNAKCounter = "send_rnr_err"

// rnrPollEvery is how often the late post looks for the evidence.
const rnrPollEvery = 5 * time.Millisecond

// markRNRBaseline remembers how many RNR NAKs the device had sent before
// the connection could carry a SEND (called at rdma_accept).
func (s *Session) markRNRBaseline() {
	n, ok := s.rnrNAKsSent()
	s.set(func() { s.rnrBaseline, s.rnrCounted = n, ok })
}

// rnrNAKsSent reads the device's RNR NAK counter; ok is false when the
// device has none.
func (s *Session) rnrNAKsSent() (n uint64, ok bool) {
	s.mu.Lock()
	dev := s.dev
	s.mu.Unlock()
	if dev == nil {
		return 0, false
	}
	c, err := dev.Counters(s.portNum())
	if err != nil {
		return 0, false
	}
	n, ok = c[rnrNAKCounter]
	return n, ok
}

// rnrNAKSeen reports whether an RNR NAK went out since the baseline, and
// which evidence said so.
func (s *Session) rnrNAKSeen() (bool, text.Text) {
	s.mu.Lock()
	base, counted := s.rnrBaseline, s.rnrCounted
	s.mu.Unlock()
	if counted {
		if n, ok := s.rnrNAKsSent(); ok && n > base {
			return true, text.Same(fmt.Sprintf("%s %d → %d", rnrNAKCounter, base, n))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dev != nil {
		s.refreshPackets()
	}
	for _, p := range s.packets {
		if p.Outbound && p.AETH != nil && p.AETH.Syndrome&0xE0 == verbs.SyndromeRNRNAKBase {
			return true, text.Text{EN: "an outbound RNR NAK on the wire", ZH: "线上发出了一个 RNR NAK"}
		}
	}
	return false, text.Text{}
}

// waitForRNRNAK blocks until the responder has RNR-NAKed the client's
// SEND, the peer hangs up, or ctx ends. With --auto it is bounded
// (peerWaitBound); interactively it waits for the person on the client
// side as long as the peer is there.
func (s *Session) waitForRNRNAK(ctx context.Context) (text.Text, error) {
	ctx, cancel := s.boundPeerWait(ctx)
	defer cancel()
	tick := time.NewTicker(rnrPollEvery)
	defer tick.Stop()
	for {
		if seen, how := s.rnrNAKSeen(); seen {
			return how, nil
		}
		if err := s.checkPeerGone(ctx); err != nil {
			// The NAK may have gone out between the two looks, and the
			// client, its SEND failed, hung up at once: the RECV is
			// still late, and the next step meets the hang-up.
			if seen, how := s.rnrNAKSeen(); seen {
				return how, nil
			}
			return text.Text{}, err
		}
		select {
		case <-ctx.Done():
			return text.Text{}, problem(ctx.Err(), text.Text{EN: "the client's SEND never arrived to be refused with an RNR NAK", ZH: "client 的 SEND 一直没到，也就没有 RNR NAK"},
				text.Text{EN: "on the client: press Enter until post_send (the SEND)", ZH: "在 client 上：一直按回车，直到 post_send（SEND）"})
		case <-tick.C:
		}
	}
}
