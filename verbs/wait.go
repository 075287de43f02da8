package verbs

import (
	"context"
	"time"
)

// CQWaiter is implemented by CQs that can block until a completion may
// have arrived, as a completion channel does (ibv_req_notify_cq +
// ibv_get_cq_event). Poll after Wait returns: the wake-up may be stale.
type CQWaiter interface {
	Wait(ctx context.Context) error
}

// WCPoller is implemented by CQs that poll into a slice the caller keeps
// (ibv_poll_cq's own shape: the caller's array of ibv_wc): a busy-polling
// loop then allocates nothing per poll. It returns how many of wc it
// filled.
type WCPoller interface {
	PollInto(wc []WC) (int, error)
}

// PollInto polls cq into wc, through WCPoller when cq has it.
func PollInto(cq CQ, wc []WC) (int, error) {
	if p, ok := cq.(WCPoller); ok {
		return p.PollInto(wc)
	}
	got, err := cq.Poll(len(wc))
	return copy(wc, got), err
}

// PollOne polls cq until one completion arrives or ctx ends, like the
// seed's busy loop around ibv_poll_cq, but yielding between polls so a
// terminal program stays responsive and Ctrl-C is honoured.
func PollOne(ctx context.Context, cq CQ) (WC, error) {
	if w, ok := cq.(CQWaiter); ok {
		for {
			wcs, err := cq.Poll(1)
			if err != nil {
				return WC{}, err
			}
			if len(wcs) > 0 {
				return wcs[0], nil
			}
			if err := w.Wait(ctx); err != nil {
				return WC{}, err
			}
		}
	}
	backoff := 20 * time.Microsecond
	for {
		wcs, err := cq.Poll(1)
		if err != nil {
			return WC{}, err
		}
		if len(wcs) > 0 {
			return wcs[0], nil
		}
		select {
		case <-ctx.Done():
			return WC{}, ctx.Err()
		case <-time.After(backoff):
		}
		if backoff < 2*time.Millisecond {
			backoff *= 2
		}
	}
}
