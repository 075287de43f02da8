package steps

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/text"
)

// Every choice a lesson offers is listed in its page's Predict section,
// in both languages, and no page gives the answer before that section.
func TestLessonPagesAskTheSameQuestion(t *testing.T) {
	for _, l := range Lessons() {
		for _, lang := range docs.Langs() {
			page, err := docs.Page(lang, docs.LessonPrefix+l.Name)
			if err != nil {
				t.Fatal(err)
			}
			_, secs := docs.Split(page)
			var predict string
			for _, s := range secs {
				if s.Heading == docs.PredictSection[lang] {
					predict = strings.ReplaceAll(s.Body, "`", "")
				}
			}
			if predict == "" {
				t.Errorf("%s/%s: no %q section", lang, l.Name, docs.PredictSection[lang])
				continue
			}
			for _, role := range []Role{Server, Client} {
				for _, rnr := range []uint8{0, MaxRNRRetry} {
					p := l.prediction(Config{Role: role, RNRRetry: rnr})
					if p == nil {
						continue
					}
					for _, c := range p.Choices {
						if !strings.Contains(predict, c.Text.In(text.Lang(lang))) {
							t.Errorf("%s/%s (%s): the Predict section lacks the choice %q", lang, l.Name, role, c.Text.In(text.Lang(lang)))
						}
					}
				}
			}
		}
	}
}
