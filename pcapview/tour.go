package pcapview

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/wire"
)

// Departure is one place a capture leaves a tour's sequence: a packet
// the tour does not send there (Got), or one the tour sends that the
// capture lacks (Want, expected after frame After; 0: at the start).
type Departure struct {
	Frame int
	Got   string
	Want  string
	After int
}

// Comparison is a capture held against one measured sequence of a tour.
type Comparison struct {
	Tour       string
	Variant    wire.TourVariant
	Departures []Departure
}

// UnknownTourError is a --tour with no measured sequence.
type UnknownTourError struct{ Tour string }

func (e *UnknownTourError) Error() string {
	return fmt.Sprintf("no measured sequence for tour %q (known: %s)", e.Tour, strings.Join(Tours(), ", "))
}

// Tours are the tours Compare knows, sorted.
func Tours() []string { return wire.MeasuredTours() }

// Compare holds c against tour's sequences and returns the closest (the
// write tour has one per notify mode).
func Compare(c *Capture, tour string) (Comparison, error) {
	variants := wire.TourSequences(tour)
	if len(variants) == 0 {
		return Comparison{}, &UnknownTourError{Tour: tour}
	}
	kinds := make([]string, len(c.Packets))
	for i, p := range c.Packets {
		kinds[i] = kindOf(p)
	}
	var best Comparison
	for i, v := range variants {
		d := align(c.Packets, kinds, v.Kinds)
		if i == 0 || len(d) < len(best.Departures) {
			best = Comparison{Tour: tour, Variant: v, Departures: d}
		}
	}
	return best, nil
}

// kindOf is the packet's kind as the tour sequences name them.
func kindOf(p Packet) string {
	if p.Err != nil {
		return "?"
	}
	return wire.Kind(p.IB)
}

// align lines got up with want by their longest common subsequence and
// returns what is left over on either side, in capture order.
func align(pk []Packet, got, want []string) []Departure {
	n, m := len(got), len(want)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if got[i] == want[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []Departure
	i, j, last := 0, 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && got[i] == want[j]:
			last = pk[i].Frame
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, Departure{Want: want[j], After: last})
			j++
		default:
			out = append(out, Departure{Frame: pk[i].Frame, Got: got[i]})
			last = pk[i].Frame
			i++
		}
	}
	return out
}

// Text says how the capture compares, one line per departure.
func (c Comparison) Text() []text.Text {
	src := fmt.Sprintf("wire/testdata/rxe-two-hosts-%s.pcap", c.Variant.Capture)
	head := text.Text{
		EN: fmt.Sprintf("Against the %s tour (%s), as measured between two Soft-RoCE hosts (%s), %d packets:", c.Tour, c.Variant.Name, src, len(c.Variant.Kinds)),
		ZH: fmt.Sprintf("与 %s 教程（%s）对照，即两台 Soft-RoCE 主机之间实测的序列（%s），%d 个报文：", c.Tour, c.Variant.Name, src, len(c.Variant.Kinds)),
	}
	out := []text.Text{head}
	if len(c.Departures) == 0 {
		return append(out, text.Text{EN: "  the capture follows it packet for packet", ZH: "  抓包与它逐个报文一致"})
	}
	for _, d := range c.Departures {
		out = append(out, d.text())
	}
	return append(out, text.Text{
		EN: fmt.Sprintf("  %d departures: a retransmission, a NAK or a different notify mode each show up here", len(c.Departures)),
		ZH: fmt.Sprintf("  共 %d 处不同：重传、NAK 或别的通知方式都会在这里出现", len(c.Departures)),
	})
}

func (d Departure) text() text.Text {
	if d.Got != "" {
		return text.Text{
			EN: fmt.Sprintf("  #%d %s: the tour sends no such packet here", d.Frame, d.Got),
			ZH: fmt.Sprintf("  #%d %s：教程在这里不发这样的报文", d.Frame, d.Got),
		}
	}
	if d.After == 0 {
		return text.Text{
			EN: fmt.Sprintf("  missing at the start: %s", d.Want),
			ZH: fmt.Sprintf("  开头缺少：%s", d.Want),
		}
	}
	return text.Text{
		EN: fmt.Sprintf("  missing after #%d: %s", d.After, d.Want),
		ZH: fmt.Sprintf("  #%d 之后缺少：%s", d.After, d.Want),
	}
}

// PrintComparison writes c.Text() in lang.
func PrintComparison(w io.Writer, c Comparison, lang text.Lang) error {
	pw := &printer{w: w, lang: lang}
	pw.line("")
	for _, t := range c.Text() {
		for _, l := range lang.Each() {
			pw.line("%s", t.In(l))
		}
	}
	return pw.err
}
