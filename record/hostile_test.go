package record

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// The replay cases of the hostile review (../shared/reviews/hostile.md):
// T4, T5, R3, R5, R6.

// TestOwnRecordingReplaysAnyMessage (T4, T5): a learner's own recording
// replays whatever --message held — ESC, a C1 control, bytes that are not
// UTF-8 — with the bytes back exactly, and the header shows them only
// escaped.
func TestOwnRecordingReplaysAnyMessage(t *testing.T) {
	for name, msg := range map[string]string{
		"control":  "\x1b[31mRED\x1b]52;c;eA==\a \u009b2J",
		"latin-1":  "caf\xe9 cr\xe8me",
		"fffd":     "already \ufffd in it",
		"tab":      "tab\there",
		"printing": "plain 中文",
	} {
		t.Run(name, func(t *testing.T) {
			cfg := demoConfig()
			cfg.Message = msg
			files, _ := liveTour(t, cfg)
			header, _, _ := strings.Cut(string(files[1]), "\n")
			if strings.ContainsAny(header, "\x1b\a\u009b") {
				t.Errorf("the header holds a raw control: %q", header)
			}
			rec, err := Decode(bytes.NewReader(files[1]), "client.rec")
			if err != nil {
				t.Fatalf("the client's own recording does not replay: %v", err)
			}
			if got := rec.Sides[0].Config.Message; got != msg {
				t.Errorf("message replayed as %q, recorded %q", got, msg)
			}
		})
	}
}

// TestSafeTextAllowsReplacementChar (T5): U+FFFD is what JSON makes of
// bytes that are not UTF-8, and controls no terminal.
func TestSafeTextAllowsReplacementChar(t *testing.T) {
	if err := safeText("caf\ufffd cr\ufffdme"); err != nil {
		t.Errorf("U+FFFD refused: %v", err)
	}
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\a", "\r"} {
		if safeText("x"+bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestMergeRefusesTwoConnections (R3): a server file and a client file
// of different tours, or of two runs of the same tour, are not one demo.
func TestMergeRefusesTwoConnections(t *testing.T) {
	decode := func(file []byte, name string) *Recording {
		rec, err := Decode(bytes.NewReader(file), name)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	write1, _ := liveTour(t, demoConfig())
	write2, _ := liveTour(t, demoConfig())
	readCfg := demoConfig()
	readCfg.Tour = steps.TourRead
	read, _ := liveTour(t, readCfg)
	if _, err := Merge(decode(write1[0], "srv"), decode(write1[1], "cli")); err != nil {
		t.Fatalf("one connection's two files refused: %v", err)
	}
	for name, pair := range map[string][2][]byte{
		"other tour": {read[0], write1[1]},
		"other run":  {write2[0], write1[1]},
	} {
		_, err := Merge(decode(pair[0], "srv"), decode(pair[1], "cli"))
		var me *MismatchError
		if !errors.As(err, &me) {
			t.Errorf("%s: merged (err %v)", name, err)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
}

// TestHeaderPromisingMoreStepsIsCutOff (R5): a header listing the tour
// ten times over a file holding it once is refused at the end line,
// "cut off at line N", not played into steps the file lacks.
func TestHeaderPromisingMoreStepsIsCutOff(t *testing.T) {
	ok := serverLines(t)
	long := edit(t, ok, 0, func(m map[string]any) {
		side := m["sides"].([]any)[0].(map[string]any)
		tour := side["tour"].([]any)
		var ten []any
		for range 10 {
			ten = append(ten, tour...)
		}
		side["tour"] = ten
	})
	_, err := Decode(strings.NewReader(join(long)), "long.rec")
	var le *LineError
	if !errors.As(err, &le) || le.Line != len(ok) || !strings.Contains(le.Reason, "cut off at line") {
		t.Fatalf("want line %d \"cut off at line\", got %v", len(ok), err)
	}
	// A learner who quit early left fewer steps and no teardown: that
	// replays.
	quit := append(append([]string(nil), ok[:6]...), ok[len(ok)-1])
	quit = edit(t, quit, len(quit)-1, func(map[string]any) {})
	if _, err := Decode(strings.NewReader(join(quit)), "quit.rec"); err != nil && strings.Contains(err.Error(), "cut off at line") {
		t.Errorf("an early quit is called cut off: %v", err)
	}
}

// TestWholeFileIsBounded (R6): lines each under the line limit still
// may not add up to more than the file limit. The bounds here are small
// (64 KiB lines, 256 KiB files): the check is the one maxLine and
// maxFile make, and 32 MiB of JSON took 33 s to write and read under
// the race detector.
func TestWholeFileIsBounded(t *testing.T) {
	const lineLimit, fileLimit = 64 << 10, 256 << 10
	ok := serverLines(t)
	pad := strings.Repeat("x", lineLimit/2)
	lines := []string{ok[0]}
	// Enough padded lines to pass the file limit.
	for i := 1; i < len(ok)-1 && len(lines) <= fileLimit/len(pad)+1; i++ {
		padded := edit(t, ok, i, func(m map[string]any) {
			m["outcome"].(map[string]any)["Note"] = map[string]any{"EN": pad}
		})
		lines = append(lines, padded[i])
	}
	file := join(append(lines, ok[len(lines):]...)) // the rest as recorded
	if _, err := decodeWithin(strings.NewReader(file), "bloat.rec", lineLimit, 1<<20); err != nil {
		t.Fatalf("the same file under a 1 MiB bound: %v", err)
	}
	_, err := decodeWithin(strings.NewReader(file), "bloat.rec", lineLimit, fileLimit)
	if err == nil || !strings.Contains(err.Error(), "longer than 256 KiB") {
		t.Fatalf("a %d-line file of %d KiB lines: %v", len(lines), len(pad)>>10, err)
	}
}
