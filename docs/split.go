package docs

import "strings"

// Section is one level-2 section of a page: its heading text and its
// lines up to the next level-2 heading.
type Section struct {
	Heading string
	Body    string
}

// Split cuts a page into what precedes the first level-2 heading (the
// title) and its sections. Headings inside fenced code are body text.
// Joining head and every section's "## Heading\n" + Body gives the page
// back.
func Split(markdown string) (head string, sections []Section) {
	var b strings.Builder
	cur := -1
	flush := func() {
		if cur < 0 {
			head = b.String()
		} else {
			sections[cur].Body = b.String()
		}
		b.Reset()
	}
	fence := ""
	for _, line := range strings.SplitAfter(markdown, "\n") {
		trimmed := strings.TrimLeft(strings.TrimRight(line, "\r\n"), " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		case strings.HasPrefix(trimmed, "## "):
			flush()
			sections = append(sections, Section{Heading: strings.TrimSpace(trimmed[3:])})
			cur++
			continue
		}
		b.WriteString(line)
	}
	flush()
	return head, sections
}

// Join puts a page back together from its head and the sections kept.
func Join(head string, sections []Section) string {
	var b strings.Builder
	b.WriteString(head)
	for _, s := range sections {
		b.WriteString("## " + s.Heading + "\n")
		b.WriteString(s.Body)
	}
	return b.String()
}

// BeforePrediction is a lesson page up to and including its question
// (the Predict section): what a learner may read before choosing. A page
// without a Predict section is returned whole.
func BeforePrediction(markdown string) string {
	head, secs := Split(markdown)
	for i, s := range secs {
		if s.Heading == PredictSection["en"] || s.Heading == PredictSection["zh"] {
			return Join(head, secs[:i+1])
		}
	}
	return markdown
}

// StepPageInLesson is a step page for a step whose result a lesson
// changes. Before the step ran, the page would give the answer away (or
// describe the correct run as if it were this one), so only its title and
// extra (a "## ..." section the caller writes: predict first) show. After,
// extra (what happened) comes first, then the page without "What to
// watch", the third section, which describes the correct run.
func StepPageInLesson(markdown string, ran bool, extra string) string {
	head, secs := Split(markdown)
	extra = strings.TrimRight(extra, "\n") + "\n\n"
	if !ran {
		return head + extra
	}
	var keep []Section
	for i, s := range secs {
		if i != 2 {
			keep = append(keep, s)
		}
	}
	return head + extra + strings.TrimPrefix(Join(head, keep), head)
}
