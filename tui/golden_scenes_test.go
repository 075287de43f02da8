package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/rdmatour/rdmatour/text"
)

// sceneSizes are the three sizes every scene is drawn at: a laptop
// terminal first, a projector, a desktop.
var sceneSizes = [][2]int{{80, 24}, {100, 30}, {120, 40}}

var sceneLangs = []text.Lang{text.EN, text.ZH, text.Both}

// TestGoldenScenes: each scene (scenes_test.go) at 80×24, 100×30 and
// 120×40 in English, Chinese and both, one golden file per scene with
// its nine frames, each under a line naming it. Update them with
//
//	go test ./tui -run TestGoldenScenes -update
func TestGoldenScenes(t *testing.T) {
	for _, sc := range scenes {
		t.Run(sc.name, func(t *testing.T) {
			var b strings.Builder
			for _, sz := range sceneSizes {
				for _, lang := range sceneLangs {
					name := fmt.Sprintf("%s %s %dx%d", sc.name, lang, sz[0], sz[1])
					m := sceneModel(t, sc, lang, sz[0], sz[1])
					screen := m.render()
					checkFrame(t, name, screen, sz[0], sz[1])
					if strings.IndexByte(screen, 0x1b) >= 0 {
						t.Fatalf("%s: escape sequences with NO_COLOR", name)
					}
					fmt.Fprintf(&b, "=== %s\n%s\n", name, screen)
				}
			}
			golden.RequireEqual(t, b.String())
		})
	}
}
