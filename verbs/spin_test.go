package verbs

import (
	"reflect"
	"testing"
	"time"
)

// fakeCQ has Poll only: PollInto must fall back to it.
type fakeCQ struct{ queued []WC }

func (f *fakeCQ) CQE() int       { return 16 }
func (f *fakeCQ) Destroy() error { return nil }
func (f *fakeCQ) Poll(max int) ([]WC, error) {
	n := min(max, len(f.queued))
	out := f.queued[:n]
	f.queued = f.queued[n:]
	return out, nil
}

func TestPollIntoFallsBackToPoll(t *testing.T) {
	f := &fakeCQ{queued: []WC{{WRID: 1}, {WRID: 2}, {WRID: 3}}}
	dst := make([]WC, 2)
	n, err := PollInto(f, dst)
	if err != nil || n != 2 || !reflect.DeepEqual(dst, []WC{{WRID: 1}, {WRID: 2}}) {
		t.Fatalf("PollInto = %d %v %v", n, dst, err)
	}
	if n, _ := PollInto(f, dst); n != 1 || dst[0].WRID != 3 {
		t.Fatalf("second PollInto = %d %v", n, dst[:n])
	}
}

// A turning loop yields, and never sooner than yieldAfter after its last
// yield; Tick allocates nothing.
func TestSpinnerYieldsEveryFewMilliseconds(t *testing.T) {
	var s Spinner
	yields := 0
	start := time.Now()
	var prev time.Time
	for yields < 3 && time.Since(start) < 5*time.Second {
		s.Tick()
		if s.last == prev {
			continue
		}
		if !prev.IsZero() {
			if d := s.last.Sub(prev); d < yieldAfter {
				t.Fatalf("yielded %v after the last yield (at least %v)", d, yieldAfter)
			}
			yields++
		}
		prev = s.last
	}
	if yields < 3 {
		t.Fatalf("%d yields in 5 s of turning", yields)
	}
	if a := testing.AllocsPerRun(1000, s.Tick); a != 0 {
		t.Fatalf("Tick allocates %.0f times", a)
	}
}
