package pcapview

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/text"
)

var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/")

// keptCaptures are the rxe captures the wire package keeps: every one
// must print.
func keptCaptures(t testing.TB) map[string][]byte {
	t.Helper()
	paths, _ := filepath.Glob("../wire/testdata/rxe-two-hosts-*.pcap")
	if len(paths) == 0 {
		t.Fatal("no kept captures in ../wire/testdata")
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "rxe-two-hosts-"), ".pcap")] = b
	}
	return out
}

// TestGoldenKeptCaptures: every kept rxe capture prints, in English and
// in Chinese, exactly as testdata/<name>.<lang>.txt says (-update
// rewrites them; read the diff).
func TestGoldenKeptCaptures(t *testing.T) {
	for name, b := range keptCaptures(t) {
		for _, lang := range []text.Lang{text.EN, text.ZH} {
			c, err := Read(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var out bytes.Buffer
			if err := Print(&out, name+".pcap", c, lang); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+"."+string(lang)+".txt")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./pcapview -run TestGolden -update writes it)", err)
			}
			if out.String() != string(want) {
				t.Errorf("%s in %s:\n got:\n%s\nwant:\n%s", name, lang, out.String(), want)
			}
		}
	}
}

// TestEveryTourCaptureFollowsItsTour: each tour's own capture has no
// departure from the tour's sequence, and another tour's capture has some.
func TestEveryTourCaptureFollowsItsTour(t *testing.T) {
	caps := keptCaptures(t)
	for _, tour := range Tours() {
		for _, v := range wireSequences(tour) {
			c, err := Read(bytes.NewReader(caps[v.Capture]))
			if err != nil {
				t.Fatalf("%s: %v", v.Capture, err)
			}
			cmp, err := Compare(c, tour)
			if err != nil {
				t.Fatal(err)
			}
			if len(cmp.Departures) != 0 || cmp.Variant.Name != v.Name {
				t.Errorf("%s against the %s tour: variant %s, departures %+v; want %s and none", v.Capture, tour, cmp.Variant.Name, cmp.Departures, v.Name)
			}
		}
	}
	c, _ := Read(bytes.NewReader(caps["read"]))
	cmp, _ := Compare(c, "atomic")
	if len(cmp.Departures) == 0 {
		t.Error("the read tour's capture follows the atomic tour's sequence")
	}
}
