package verbs

import (
	"context"
	"time"
)

// PollOne polls cq until one completion arrives or ctx ends, like the
// seed's busy loop around ibv_poll_cq, but yielding between polls so a
// terminal program stays responsive and Ctrl-C is honoured.
func PollOne(ctx context.Context, cq CQ) (WC, error) {
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
