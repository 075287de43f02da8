package guide_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
)

// TestNextToTryFitsTheTour: the end-of-tour advice only suggests what the
// tour that just ran accepts — its own lessons, --notify and --track
// manual on the write tour alone — and names the other tours.
func TestNextToTryFitsTheTour(t *testing.T) {
	lesson := func(t *testing.T, name string) *steps.Lesson {
		t.Helper()
		l, err := steps.ParseLesson(name)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, tc := range []struct {
		cfg        steps.Config
		want, nope []string
	}{
		{steps.Config{Role: steps.Client},
			[]string{"--lesson no-recv", "--notify doorbell", "--track manual", "--tour read|atomic|ud", "rdmatour export-c client)"}, nil},
		{steps.Config{Role: steps.Client, Tour: steps.TourRead},
			[]string{"--lesson no-remote-read", "--tour write|atomic|ud", "export-c client --tour read"}, []string{"--notify", "--track manual"}},
		{steps.Config{Role: steps.Server, Tour: steps.TourAtomic},
			[]string{"--lesson atomic-unaligned", "--tour write|read|ud", "export-c server --tour atomic"}, []string{"--notify", "--track manual"}},
		{steps.Config{Role: steps.Server, Tour: steps.TourUD},
			[]string{"--tour write|read|atomic", "export-c server --tour ud"}, []string{"--lesson", "--notify", "--track manual"}},
		{steps.Config{Role: steps.Client, Lesson: lesson(t, "no-remote-read")},
			[]string{"--lesson read-depth-zero", "export-c client --tour read"}, []string{"--notify", "--tour write"}},
	} {
		long := guide.NextToTry(tc.cfg).EN
		for _, w := range tc.want {
			if !strings.Contains(long, w) {
				t.Errorf("%v %s: %q lacks %q", tc.cfg.Tour, tc.cfg.LessonName(), long, w)
			}
		}
		for _, text := range []string{long, guide.NextToTryShort(tc.cfg).EN} {
			for _, n := range tc.nope {
				if strings.Contains(text, n) {
					t.Errorf("%v %s: %q suggests %q, which that tour refuses", tc.cfg.Tour, tc.cfg.LessonName(), text, n)
				}
			}
		}
	}
}
