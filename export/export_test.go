package export_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/export"
	"github.com/rdmatour/rdmatour/steps"
)

// Validate turns away what no tour can run before anything runs.
func TestValidate(t *testing.T) {
	badRKey, err := steps.ParseLesson("bad-rkey")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    export.Options
		want string // "" = accepted
	}{
		{"plain write tour", export.Options{}, ""},
		{"lesson", export.Options{Lesson: badRKey}, ""},
		{"read tour", export.Options{Tour: steps.TourRead}, ""},
		{"lesson on the manual track", export.Options{Lesson: badRKey, Track: steps.TrackManual}, "cannot be combined"},
		{"ud tour on the manual track", export.Options{Tour: steps.TourUD, Track: steps.TrackManual}, "manual"},
	} {
		err := tc.o.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Validate() = %v, want %q", tc.name, err, tc.want)
		}
	}
}
