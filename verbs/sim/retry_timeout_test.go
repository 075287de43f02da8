package sim

import (
	"testing"
	"time"
)

// TestACKTimeoutIsRxes: rdma_cm's QPs get rxe's timeout 19 unless asked
// otherwise, and 19 is 4.096 µs × 2^19, 2.15 s (measured between two
// guests: a lost WRITE resent every 2.23–2.31 s).
func TestACKTimeoutIsRxes(t *testing.T) {
	for _, tc := range []struct {
		asked, got uint8
		wait       time.Duration
	}{
		{0, 19, 2147483648 * time.Nanosecond},
		{14, 14, 67108864 * time.Nanosecond},
		{32, 19, 2147483648 * time.Nanosecond},
	} {
		p := New(Options{ACKTimeout: tc.asked})
		if p.opts.ACKTimeout != tc.got {
			t.Errorf("ACKTimeout %d: the QPs get %d, want %d", tc.asked, p.opts.ACKTimeout, tc.got)
		}
		if d := (&qpAttrs{timeout: p.opts.ACKTimeout}).ackTimeout(); d != tc.wait {
			t.Errorf("timeout %d waits %v, want %v", p.opts.ACKTimeout, d, tc.wait)
		}
	}
}
