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
