package guide_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
)

// Try next offers an experiment, and after one, restoring its edits.
func TestNextToTryExperiment(t *testing.T) {
	plain := guide.NextToTry(steps.Config{Role: steps.Client})
	if !strings.Contains(plain.EN, "--edit STEP.FIELD=VALUE") || !strings.Contains(plain.ZH, "--edit STEP.FIELD=VALUE") {
		t.Errorf("no experiment offered: %q / %q", plain.EN, plain.ZH)
	}
	e, err := steps.ParseEdit("post-write.rkey=+1")
	if err != nil {
		t.Fatal(err)
	}
	edited := guide.NextToTry(steps.Config{Role: steps.Client, Edits: steps.Edits{e}})
	if !strings.Contains(edited.EN, "restored: leave out --edit post-write.rkey=+1") || !strings.Contains(edited.ZH, "去掉 --edit post-write.rkey=+1") {
		t.Errorf("no restore offered: %q / %q", edited.EN, edited.ZH)
	}
	// The TUI's end banner has the short form: the restore comes first.
	short := guide.NextToTryShort(steps.Config{Role: steps.Client, Edits: steps.Edits{e}})
	if !strings.HasPrefix(short.EN, "Try next: your edits restored (leave out --edit post-write.rkey=+1)") || !strings.Contains(short.ZH, "去掉 --edit post-write.rkey=+1") {
		t.Errorf("the banner's Try next does not offer the restore: %q / %q", short.EN, short.ZH)
	}
	if s := guide.NextToTryShort(steps.Config{Role: steps.Client}).EN; strings.Contains(s, "restored") {
		t.Errorf("a run without edits is offered a restore: %q", s)
	}
}
