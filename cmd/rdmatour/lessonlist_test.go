package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// `rdmatour lessons` lists every lesson once, under its topic's heading,
// each heading once: the setup failures together.
func TestLessonsListedByTopic(t *testing.T) {
	p := start(t, nil, "lessons")
	if code := p.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out)
	}
	out := p.out.String()
	for _, l := range steps.Lessons() {
		if l.Topic.EN == "" || l.Topic.ZH == "" {
			t.Errorf("lesson %s has no topic in both languages", l.Name)
			continue
		}
		if n := strings.Count(out, "\n"+l.Topic.EN+"\n"); n != 1 {
			t.Errorf("topic %q heads %d groups, want 1:\n%s", l.Topic.EN, n, out)
		}
		heading := strings.Index(out, "\n"+l.Topic.EN+"\n")
		at := strings.Index(out, "  "+l.Name+" ")
		if at < 0 || at < heading {
			t.Errorf("lesson %s is not listed under %q", l.Name, l.Topic.EN)
		}
	}
	setup := out[strings.Index(out, steps.TopicSetup.EN):]
	if next := strings.Index(setup[1:], "\n\n"+steps.TopicReadAtomic.EN); next >= 0 {
		setup = setup[:next]
	}
	for _, name := range []string{"no-such-address", "remote-write-without-local", "memlock"} {
		if !strings.Contains(setup, "  "+name+" ") {
			t.Errorf("%s is not among the setup failures:\n%s", name, setup)
		}
	}
}
