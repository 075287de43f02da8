package termtext

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// The pages carry HTML comments for their authors: the evidence and
// source markers next to a claim (<!-- evidence: TestName -->). A learner
// must never see them. They are taken out of the Markdown before it is
// parsed, not skipped while drawing: CommonMark makes a line that starts
// with a comment an HTML block, which swallows the text after the
// comment on that line and cuts the paragraph around it in two.

// comment is one HTML comment on one line, with the blanks before it.
var comment = regexp.MustCompile(`[ \t]*<!--.*?-->`)

// withoutComments returns src with every one-line HTML comment outside
// fenced code removed. A line that held only comments goes away; text
// after a comment that opened a line keeps the line's indent; a
// punctuation mark left at the start of a line (a marker before a colon)
// joins the line above.
func withoutComments(src string) string {
	if !strings.Contains(src, "<!--") {
		return src
	}
	var out []string
	fence := ""
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		case strings.Contains(line, "<!--"):
			out = appendUncommented(out, line)
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// appendUncommented appends line, its comments removed, to out.
func appendUncommented(out []string, line string) []string {
	rest := comment.ReplaceAllString(line, "")
	if strings.TrimSpace(rest) == "" {
		return out // the line was comments only
	}
	indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	if !strings.HasPrefix(strings.TrimLeft(line, " \t"), "<!--") {
		return append(out, rest)
	}
	rest = strings.TrimLeft(rest, " \t")
	if r, _ := utf8.DecodeRuneInString(rest); strings.ContainsRune(joinsAbove, r) && len(out) > 0 && strings.TrimSpace(out[len(out)-1]) != "" {
		out[len(out)-1] += rest
		return out
	}
	return append(out, indent+rest)
}

// joinsAbove are the marks that end a sentence or clause: one that a
// removed comment left at the start of a line belongs to the line above.
const joinsAbove = ".,:;)。，：；）、"
