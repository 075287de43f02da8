package docs

import (
	"strings"
	"testing"
)

func TestSplitJoinRoundTrip(t *testing.T) {
	for _, lang := range Langs() {
		for _, id := range IDs(lang) {
			page, _ := Page(lang, id)
			head, secs := Split(page)
			if got := Join(head, secs); got != page {
				t.Errorf("%s/%s: Split+Join changed the page", lang, id)
			}
			if len(secs) != len(Sections(page)) {
				t.Errorf("%s/%s: %d sections, Sections says %d", lang, id, len(secs), len(Sections(page)))
			}
		}
	}
}

func TestBeforePredictionHidesTheAnswer(t *testing.T) {
	for _, lang := range Langs() {
		page, _ := Page(lang, "lesson-bad-rkey")
		before := BeforePrediction(page)
		want := SectionsFor(lang, "lesson-bad-rkey")[:2]
		if got := Sections(before); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: sections before the prediction = %q, want %q", lang, got, want)
		}
		if strings.Contains(before, "0x62") {
			t.Errorf("%s: the answer (NAK syndrome 0x62) shows before the prediction", lang)
		}
	}
	if p := "# T\n\n## A\nx\n"; BeforePrediction(p) != p {
		t.Error("a page without a Predict section was cut")
	}
}

func TestStepPageInLesson(t *testing.T) {
	page, _ := Page("en", "post-write-early")
	before := StepPageInLesson(page, false, "## Predict first\n\nkeys 1-4\n")
	if got := Sections(before); strings.Join(got, "|") != "Predict first" || strings.Contains(before, "EINVAL") || !strings.HasPrefix(before, "# ") {
		t.Errorf("before the run:\n%s", before)
	}
	page, _ = Page("en", "poll-write")
	after := StepPageInLesson(page, true, "## What happened\n\nremote access error\n")
	if got := Sections(after); strings.Join(got, "|") != "What happened|What the call does|Why it is needed here|Common mistakes" {
		t.Errorf("after the run: %q", got)
	}
	if strings.Contains(after, "IBV_WC_SUCCESS") || !strings.HasPrefix(after, "# ") {
		t.Errorf("after the run the page still shows the correct run, or lost its title:\n%s", after)
	}
}
