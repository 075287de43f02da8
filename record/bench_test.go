package record

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkDecode reads a Soft-RoCE server recording (19 lines, ~48 KB).
func BenchmarkDecode(b *testing.B) {
	file, err := os.ReadFile("../testdata/replay/rxe-send-server.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(file), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordTour is a whole simulated tour (both sides) recorded,
// with the size of the two files.
func BenchmarkRecordTour(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		files, _ := liveTour(b, demoConfig())
		b.ReportMetric(float64(len(files[0])+len(files[1])), "file-bytes")
	}
}
