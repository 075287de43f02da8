package guide

import (
	"fmt"
	"math"
	"strings"

	"github.com/guptarohit/asciigraph"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// MeasureChart draws a measured run (steps.Measurement) as two small
// line charts over the WRITE size, latency and bandwidth, with asciigraph;
// width is the columns it may use. The x axis is log2 of the size, so
// 8 B … 4 KiB are evenly spaced. The y axis starts at 0: a latency that
// moves from 150 to 208 µs under load is noise on a nearly flat line, and
// an axis from 150 to 208 would draw it as a cliff.
func MeasureChart(m *steps.Measurement, lang text.Lang, width int) []string {
	if m == nil || len(m.Points) < 2 {
		return nil
	}
	var lat, bw []float64
	for _, p := range m.Points {
		lat = append(lat, p.LatencyUS)
		bw = append(bw, p.MiBps)
	}
	lo, hi := math.Log2(float64(m.Points[0].Size)), math.Log2(float64(m.Points[len(m.Points)-1].Size))
	w := max(16, min(48, width-12))
	chart := func(series []float64, caption text.Text) []string {
		out := asciigraph.Plot(series, asciigraph.Height(5), asciigraph.Width(w), asciigraph.Precision(1), asciigraph.LowerBound(0),
			asciigraph.XAxisRange(lo, hi), asciigraph.XAxisTickCount(len(m.Points)),
			asciigraph.XAxisValueFormatter(sizeLabel), asciigraph.Caption(caption.In(lang)))
		return strings.Split(out, "\n")
	}
	lines := chart(lat, text.Text{EN: "µs per WRITE, one at a time", ZH: "逐个发：每个 WRITE 的微秒数"})
	lines = append(lines, "")
	lines = append(lines, chart(bw, text.Text{EN: fmt.Sprintf("MiB/s, %d in flight", m.Depth), ZH: fmt.Sprintf("%d 个在途：MiB/s", m.Depth)})...)
	return lines
}

// sizeLabel names 2^x bytes: 8, 64, 512, 4K.
func sizeLabel(x float64) string {
	n := int(math.Round(math.Pow(2, x)))
	if n >= 1024 && n%1024 == 0 {
		return fmt.Sprintf("%dK", n/1024)
	}
	return fmt.Sprint(n)
}
