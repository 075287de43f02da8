package guide

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

func TestMeasureChart(t *testing.T) {
	m := &steps.Measurement{Depth: 7, Points: []steps.MeasuredPoint{
		{Size: 8, LatencyUS: 30, MiBps: 0.5}, {Size: 64, LatencyUS: 31, MiBps: 4},
		{Size: 512, LatencyUS: 35, MiBps: 30}, {Size: 4096, LatencyUS: 60, MiBps: 180}}}
	for _, tc := range []struct {
		lang text.Lang
		want []string
	}{
		{"en", []string{"µs per WRITE", "MiB/s, 7 in flight", "4K", "512"}},
		{"zh", []string{"逐个发", "7 个在途", "4K"}},
	} {
		out := strings.Join(MeasureChart(m, tc.lang, 60), "\n")
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", tc.lang, w, out)
			}
		}
		if n := regexp.MustCompile(`(?m)^ +0\.0 [┤┼]`).FindAllStringIndex(out, -1); len(n) != 2 {
			t.Errorf("%s: the y axis does not start at 0:\n%s", tc.lang, out)
		}
		t.Logf("%s\n%s", tc.lang, out)
	}
	if MeasureChart(nil, "en", 60) != nil {
		t.Error("a nil measurement drew a chart")
	}
}

// BenchmarkMeasureChart: the call pane draws the chart on every frame
// (View stays pure, the width can change), so it must be cheap.
func BenchmarkMeasureChart(b *testing.B) {
	m := &steps.Measurement{Depth: 7, Points: []steps.MeasuredPoint{
		{Size: 8, LatencyUS: 30, MiBps: 0.5}, {Size: 64, LatencyUS: 31, MiBps: 4},
		{Size: 512, LatencyUS: 35, MiBps: 30}, {Size: 4096, LatencyUS: 60, MiBps: 180}}}
	for b.Loop() {
		MeasureChart(m, "en", 100)
	}
}
