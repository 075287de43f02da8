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

// FuzzParseNoticeEdits: any RECV buffer a peer fills parses without a
// panic, and every edit it yields lies within the buffer.
func FuzzParseNoticeEdits(f *testing.F) {
	f.Add(append([]byte("RDMA_WRITE_DONE\x00"), "EDITS\x01\x00\x05a.b=1"...))
	f.Add([]byte("RDMA_WRITE_DONE\x00EDITS\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pe, err := ParseNoticeEdits(b)
		if err != nil {
			return
		}
		n := 0
		for _, e := range pe.List {
			n += len(e)
		}
		if n > len(b) {
			t.Fatalf("%d bytes of edits from a %d-byte buffer", n, len(b))
		}
	})
}
