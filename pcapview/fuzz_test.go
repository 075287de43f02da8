package pcapview

import (
	"bytes"
	"io"
	"testing"

	"github.com/rdmatour/rdmatour/text"
)

// FuzzRead: no file, however damaged, makes the reader, the notes, the
// printer or the tour comparison panic or hang; whatever Read refuses is
// a *FileError or a reader's error, never a half-filled capture without
// one.
func FuzzRead(f *testing.F) {
	for _, b := range keptCaptures(f) {
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	send := keptCaptures(f)["send"]
	f.Add(pcapngOf(f, framesOf(f, send)...))
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x0d, 0x0d, 0x0a})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Read(bytes.NewReader(b))
		if c == nil {
			if err == nil {
				t.Fatal("no capture and no error")
			}
			return
		}
		if len(c.Packets) == 0 && err == nil {
			t.Fatal("a capture without RoCE packets and no error")
		}
		if err := Print(io.Discard, "fuzz", c, text.Both); err != nil {
			t.Fatal(err)
		}
		for _, tour := range Tours() {
			cmp, err := Compare(c, tour)
			if err != nil {
				t.Fatal(err)
			}
			_ = PrintComparison(io.Discard, cmp, text.Both)
		}
	})
}
