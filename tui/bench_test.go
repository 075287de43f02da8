package tui

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// BenchmarkFirstFrame is the program's own work from a new session to
// the first frame: the model, the first page rendered from Markdown (the
// real docs), the layout and View. Package init is not in it; see the
// start-up figures in the report for the whole process.
func BenchmarkFirstFrame(b *testing.B) {
	r := newRig(b, steps.NotifySend)
	for b.Loop() {
		m, err := newModel(context.Background(), Options{Sessions: []steps.Runner{r.srv}, Lang: text.EN, Docs: docs.Page})
		if err != nil {
			b.Fatal(err)
		}
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		if m.View().Content == "" {
			b.Fatal("no frame")
		}
	}
}

// BenchmarkTickFrame is the work of one refresh tick at a layout: lay
// out, fill every pane (wrapping what is wider than it) and draw.
func BenchmarkTickFrame(b *testing.B) {
	for _, sz := range []struct {
		name string
		w, h int
	}{{"presenter-100x30", 100, 30}, {"demo-120x40", 120, 40}, {"narrow-80x24", 80, 24}} {
		b.Run(sz.name, func(b *testing.B) {
			m := goldenModel(b, true, text.ZH, sz.w, sz.h)
			for b.Loop() {
				m.sync()
				if m.View().Content == "" {
					b.Fatal("no frame")
				}
			}
		})
	}
}
