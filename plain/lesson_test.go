package plain

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

func lessonClient(t *testing.T, lesson string) *steps.Session {
	t.Helper()
	s, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}), Lesson: lessonNamed(lesson),
		Server: netip.MustParseAddrPort("127.0.0.1:7471")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Plain mode without --auto asks the lesson's question as a prompt and
// asks again until it gets a choice; --auto (no input) skips it.
func TestPlainPredictPrompt(t *testing.T) {
	s := lessonClient(t, "bad-rkey")
	var out strings.Builder
	p := &Runner{out: &out, lang: text.EN, in: newLineFeed(strings.NewReader("x\n9\n2\n"))}
	if err := p.predict(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	printed := out.String()
	for _, want := range []string{"Predict (client):", "How does the RDMA WRITE complete?", "  2) IBV_WC_REM_ACCESS_ERR (remote access error)", "type a number from 1 to 4", "noted"} {
		if !strings.Contains(printed, want) {
			t.Errorf("prompt lacks %q:\n%s", want, printed)
		}
	}
	if strings.Count(printed, "type a number") != 2 {
		t.Errorf("want two re-asks (for x and 9):\n%s", printed)
	}
	if got := s.Prediction().Picked; got != 1 {
		t.Errorf("picked %d, want 1 (the second choice)", got)
	}

	auto := lessonClient(t, "bad-rkey")
	out.Reset()
	p = &Runner{out: &out, lang: text.EN}
	if err := p.predict(context.Background(), auto); err != nil || out.Len() != 0 || auto.Prediction().Pending() {
		t.Errorf("--auto: err %v, printed %q, pending %v", err, out.String(), auto.Prediction().Pending())
	}

	eof := lessonClient(t, "bad-rkey")
	p = &Runner{out: &out, lang: text.EN, in: newLineFeed(strings.NewReader(""))}
	if err := p.predict(context.Background(), eof); err != nil || eof.Prediction().Pending() || p.in != nil {
		t.Errorf("closed input: err %v, pending %v", err, eof.Prediction().Pending())
	}
}

// The lesson page before the tour stops at its question.
func TestPlainLessonPageKeepsTheAnswer(t *testing.T) {
	p := &Runner{docs: func(lang, id string) (string, error) {
		return "# T\n\n## The mistake\nm\n\n## Predict\nq\n\n## What you will see\nANSWER\n", nil
	}}
	before, _ := p.lessonPage("en", "lesson-x", false)
	after, _ := p.lessonPage("en", "lesson-x", true)
	if strings.Contains(before, "ANSWER") || !strings.Contains(after, "ANSWER") || strings.Contains(after, "## Predict") {
		t.Errorf("before:\n%s\nafter:\n%s", before, after)
	}
}
