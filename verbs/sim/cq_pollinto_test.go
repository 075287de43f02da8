package sim

import (
	"reflect"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// PollInto takes the same completions, in the same order, as Poll would,
// into the caller's slice, and allocates nothing.
func TestPollIntoMatchesPoll(t *testing.T) {
	for _, tc := range []struct {
		name       string
		queued, in int
	}{
		{"empty CQ", 0, 4},
		{"fewer than the slice holds", 3, 8},
		{"as many as the slice holds", 4, 4},
		{"more than the slice holds", 9, 4},
		{"an empty slice", 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := newCQ(t), newCQ(t)
			for i := range tc.queued {
				wc := verbs.WC{WRID: uint64(i + 1), Status: verbs.WCSuccess, Opcode: verbs.WCRDMAWrite}
				a.push(wc)
				b.push(wc)
			}
			want, err := a.Poll(tc.in)
			must(t, err)
			dst := make([]verbs.WC, tc.in)
			n, err := b.PollInto(dst)
			must(t, err)
			if !reflect.DeepEqual(dst[:n], want[:len(want):len(want)]) && (n != 0 || len(want) != 0) {
				t.Fatalf("PollInto took %v, Poll %v", dst[:n], want)
			}
			if left, _ := b.Poll(64); len(left) != tc.queued-n {
				t.Fatalf("%d completions left after PollInto took %d of %d", len(left), n, tc.queued)
			}
			if allocs := testing.AllocsPerRun(100, func() { b.PollInto(dst) }); allocs != 0 {
				t.Fatalf("PollInto allocates %.0f times a call", allocs)
			}
		})
	}
}

func TestPollIntoDestroyedCQ(t *testing.T) {
	c := newCQ(t)
	must(t, c.Destroy())
	if _, err := c.PollInto(make([]verbs.WC, 1)); err == nil {
		t.Fatal("PollInto on a destroyed CQ succeeded")
	}
}

func newCQ(t *testing.T) *cq {
	t.Helper()
	p := New(Options{})
	c, err := p.dev.CreateCQ(16)
	must(t, err)
	return c.(*cq)
}
