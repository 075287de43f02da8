package exercise

import (
	"strings"
)

// difference is where the learner's program first departs from the
// reference solution, by the exported program's structure (its step
// comments): a line the solution does not have, or a step that lacks
// one of the solution's lines.
type difference struct {
	line     int // 1-based line in the learner's program (0 when missing)
	step     string
	fragment string // the differing part of that line, as written
	missing  bool
}

// stepLines are a program's statements in main, by the step they are
// in, each with its line number.
type stepLine struct {
	step, text string
	line       int
}

func mainLines(src string) []stepLine {
	at := strings.Index(src, "\nint main(")
	if at < 0 {
		return nil
	}
	first := strings.Count(src[:at+1], "\n") + 1
	var out []stepLine
	step := ""
	for i, l := range strings.Split(src[at+1:], "\n") {
		if m := stepComment.FindStringSubmatch(l); m != nil {
			step = m[1]
			continue
		}
		if t := strings.TrimSpace(l); t != "" && step != "" {
			out = append(out, stepLine{step: step, text: t, line: first + i})
		}
	}
	return out
}

// firstDifference compares the two programs' statements step by step.
func firstDifference(src, solution string) (difference, bool) {
	mine, ref := mainLines(src), mainLines(solution)
	if len(mine) == 0 || len(ref) == 0 {
		return difference{}, false
	}
	refByStep := map[string][]string{}
	for _, l := range ref {
		refByStep[l.step] = append(refByStep[l.step], l.text)
	}
	have := map[string]int{}
	for _, l := range mine {
		have[l.step+"\x00"+l.text]++
	}
	for _, l := range mine {
		if !contains(refByStep[l.step], l.text) {
			return difference{line: l.line, step: l.step, fragment: changedPart(l.text, refByStep[l.step])}, true
		}
	}
	for _, l := range ref {
		k := l.step + "\x00" + l.text
		if have[k] == 0 {
			return difference{step: l.step, missing: true}, true
		}
		have[k]--
	}
	return difference{}, false
}

func contains(lines []string, l string) bool {
	for _, x := range lines {
		if x == l {
			return true
		}
	}
	return false
}

// changedPart is the field of line where it first differs from the most
// alike line of the step in the solution: from the comma or brace before
// the difference to the one after it.
func changedPart(line string, ref []string) string {
	at := 0
	for _, r := range ref {
		n := 0
		for n < len(line) && n < len(r) && line[n] == r[n] {
			n++
		}
		at = max(at, n)
	}
	start := max(strings.LastIndex(line[:at], ", "), strings.LastIndex(line[:at], "{ "))
	if start < 0 {
		start = strings.LastIndexAny(line[:at], "(")
	}
	start++
	end := len(line)
	if i := strings.IndexAny(line[at:], ",}"); i >= 0 {
		end = at + i
	}
	frag := strings.TrimSpace(line[start:end])
	if frag == "" || len(frag) > 120 {
		frag = strings.TrimSpace(line[start:min(len(line), start+120)])
	}
	return frag
}
