package privdata

import (
	"errors"
	"testing"
)

// The late edits after the SEND's NUL: they round-trip within the RECV's
// 128 bytes, the seed's bare notice and zero padding carry none, and a
// section that runs past the buffer is an error, not a panic.
func TestNoticeEditsRoundTrip(t *testing.T) {
	notice := append([]byte("RDMA_WRITE_DONE"), 0)
	edits := []string{"post-write.remote_addr=+16", "post-write.message=late"}
	buf := make([]byte, 128)
	copy(buf, AppendNoticeEdits(notice, edits, len(buf)))
	got, err := ParseNoticeEdits(buf)
	if err != nil || len(got.List) != 2 || got.List[0].String() != edits[0] || got.Omitted != 0 {
		t.Fatalf("got %+v, %v", got, err)
	}
	if n := len(AppendNoticeEdits(notice, nil, 128)); n != len(notice) {
		t.Errorf("no edits: %d bytes, want the notice's %d", n, len(notice))
	}
	seed := make([]byte, 128)
	copy(seed, notice)
	if got, err := ParseNoticeEdits(seed); err != nil || len(got.List) != 0 {
		t.Errorf("the seed's notice: %+v, %v", got, err)
	}
	tight := AppendNoticeEdits(notice, edits, 50)
	if got, _ := ParseNoticeEdits(tight); len(tight) > 50 || len(got.List) != 1 || got.Omitted != 1 {
		t.Errorf("50 bytes of room: %d bytes, %+v", len(tight), got)
	}
	bad := append(append([]byte(nil), notice...), "EDITS\x01\x00\x50ab"...)
	var he *HelloError
	if _, err := ParseNoticeEdits(bad); !errors.As(err, &he) {
		t.Errorf("a section past the buffer: %v", err)
	}
}
