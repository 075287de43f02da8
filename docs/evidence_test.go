package docs_test

// A page that says what rxe, Soft-RoCE or the simulated NIC does names
// its evidence, next to the claim (issue 19):
//
//	<!-- evidence: TestName -->           a Go test that measures it
//	<!-- source: FILE FUNCTION -->        the code that does it
//
// The rule, as TestDeviceClaimsCarryEvidence applies it to every page,
// en and zh, README included:
//
//   - The unit is a block: a paragraph, one list item (its continuation
//     lines included, its sub-items not), a table, a block quote. A
//     marker anywhere in the block counts, on its own line under the text
//     too (the renderer hides it either way: TestMarkersDoNotShow).
//   - A block states a device claim when, after removing its inline code,
//     link targets, man-page citations like rxe(7) and the markers, it
//     still contains a trigger: the word rxe, Soft-RoCE (SoftRoCE),
//     软件 RoCE, simulated NIC, 模拟网卡, "the sim", "measured", 实测.
//   - Not claims: headings, fenced code blocks, device names written as
//     code (`rxe0`, `--backend sim`), the command that makes an rxe
//     device (rdma link add rxe0 type rxe netdev eth0, in code or not),
//     and rxe0 or sim0 in prose (they are not the word rxe). A block
//     that only names a device, claiming nothing about it, carries
//     <!-- names-only: WHY -->, saying why.
//
// And every marker must resolve: an evidence marker names Go test
// functions (comma-separated) that exist in the repository's *_test.go
// files; a source marker names "kernel FILE FUNCTION", "rdma-core FILE
// FUNCTION", or a FILE of this repository (and, when given, a function,
// method, type, variable or constant that the file declares).

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/termtext"
)

// deviceTrigger finds a word that makes a block a claim about the device.
var deviceTrigger = regexp.MustCompile(`\brxe\b|(?i:soft-?roce)|软件 ?RoCE|(?i:simulated NIC)|模拟网卡|\b[Tt]he sim\b|\b[Mm]easured\b|实测`)

// notProse is what a block loses before the trigger is looked for: code
// spans, link targets, man-page citations of rxe, HTML comments.
var notProse = regexp.MustCompile("`[^`]*`|\\]\\([^)]*\\)|\\brxe\\(7\\)|<!--[\\s\\S]*?-->|rdma link add \\S+ type rxe")

// marker matches one evidence, source or names-only marker.
var marker = regexp.MustCompile(`<!--\s*(evidence|source|names-only):\s*([^>]*?)\s*-->`)

// inlineCode matches a code span: a marker written in one is quoted, not
// placed.
var inlineCode = regexp.MustCompile("`[^`]*`")

// markers returns the markers placed in text (not quoted in code).
func markers(text string) [][]string {
	return marker.FindAllStringSubmatch(inlineCode.ReplaceAllString(text, " "), -1)
}

// pageBlock is one paragraph, list item, table or quote of a page.
type pageBlock struct {
	line int // first line, 1-based
	text string
}

var (
	listItemStart = regexp.MustCompile(`^\s*([-*+]|\d+[.)])\s`)
	headingLine   = regexp.MustCompile(`^\s{0,3}#{1,6}(\s|$)`)
)

// blocks splits a page into its blocks, code and headings left out.
func blocks(page string) []pageBlock {
	var out []pageBlock
	var cur *pageBlock
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	fence := ""
	for i, l := range strings.Split(page, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			flush()
			fence = trimmed[:3]
			continue
		case trimmed == "", headingLine.MatchString(l):
			flush()
			continue
		case listItemStart.MatchString(l):
			flush()
		}
		if cur == nil {
			cur = &pageBlock{line: i + 1}
		}
		cur.text += l + "\n"
	}
	flush()
	return out
}

// claims reports whether block states something about the device.
func claims(text string) bool {
	return deviceTrigger.MatchString(notProse.ReplaceAllString(text, " "))
}

func TestDeviceClaimsCarryEvidence(t *testing.T) {
	n := 0
	for name, page := range pagesAndREADMEs(t) {
		for _, b := range blocks(page) {
			if !claims(b.text) {
				continue
			}
			n++
			if len(markers(b.text)) == 0 {
				t.Errorf("%s:%d: says what the device does without <!-- evidence: TestX --> or <!-- source: FILE FUNCTION -->:\n%s",
					pageFile(name), b.line, strings.TrimSpace(b.text))
			}
		}
	}
	if n == 0 {
		t.Error("no page states a device claim: is the trigger right?")
	}
}

func TestEvidenceMarkersResolve(t *testing.T) {
	tests := goTestNames(t, "..")
	for name, page := range pagesAndREADMEs(t) {
		for _, m := range markers(page) {
			where := pageFile(name) + ": " + m[0]
			switch m[1] {
			case "evidence":
				for _, fn := range strings.Split(m[2], ",") {
					if fn = strings.TrimSpace(fn); !tests[fn] {
						t.Errorf("%s: no func %s( in any *_test.go file", where, fn)
					}
				}
			case "source":
				if err := checkSource(m[2]); err != "" {
					t.Errorf("%s: %s", where, err)
				}
			case "names-only":
				if m[2] == "" {
					t.Errorf("%s: say why the block claims nothing", where)
				}
			}
		}
	}
}

// pagesAndREADMEs is allPages plus the project's README.md and
// README.zh.md, named "../README" and "../README.zh".
func pagesAndREADMEs(t *testing.T) map[string]string {
	t.Helper()
	out := allPages(t)
	for _, name := range []string{"README", "README.zh"} {
		b, err := os.ReadFile("../" + name + ".md")
		if err != nil {
			t.Fatal(err)
		}
		out["../"+name] = string(b)
	}
	return out
}

// pageFile is the repository path of a page named as pagesAndREADMEs
// names it.
func pageFile(name string) string {
	if rest, ok := strings.CutPrefix(name, "../"); ok {
		return rest + ".md"
	}
	return "docs/" + name + ".md"
}

// checkSource returns what is wrong with a source marker's citation, or "".
func checkSource(cite string) string {
	f := strings.Fields(cite)
	switch {
	case len(f) == 0:
		return "cites nothing"
	case f[0] == "kernel" || f[0] == "rdma-core":
		if len(f) < 3 {
			return "want " + f[0] + " FILE FUNCTION"
		}
		return ""
	}
	b, err := os.ReadFile(filepath.Join("..", f[0]))
	if err != nil {
		return "want kernel FILE FUNCTION, rdma-core FILE FUNCTION, or a file of this repository: " + err.Error()
	}
	if len(f) > 1 {
		// "(s *responder) write", "newQP" or a type: the last word is
		// the name, declared as a func, a type, a var or const, or a
		// member of a type or const block.
		name := regexp.QuoteMeta(f[len(f)-1])
		decl := regexp.MustCompile(`(?m)^(func (\([^)]*\) )?` + name + `[\[(]|(type|var|const) ` + name + `\b|\t` + name + `\b)`)
		if !decl.Match(b) {
			return f[0] + " declares no " + f[len(f)-1]
		}
	}
	return ""
}

// goTestNames returns the names of the Test functions in the *_test.go
// files under root.
func goTestNames(t *testing.T, root string) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test\w*)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllSubmatch(b, -1) {
			out[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMarkersDoNotShow renders every page as the plain runner and the
// explanation pane do: no marker reaches the screen.
func TestMarkersDoNotShow(t *testing.T) {
	for name, page := range allPages(t) {
		lang, id, _ := strings.Cut(name, "/")
		got := inlineCode.ReplaceAllString(termtext.PlainPage(lang, id, page, 80), " ")
		if strings.Contains(got, "<!--") || strings.Contains(got, "-->") {
			t.Errorf("%s: a comment shows on screen", pageFile(name))
		}
	}
}

func TestEvidenceRule(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"rxe moves the QP to ERR.", true},
		{"Soft-RoCE answers with an RNR NAK.", true},
		{"模拟网卡和 rxe 一样。", true},
		{"Measured on the guest: the sim returns EINVAL, measured twice.", true},
		{"实测：QP 进入 ERR。", true},
		{"Load it with `rdma link add rxe0 type rxe netdev eth0`.", false},
		{"Run `--backend sim` on any machine.", false},
		{"See rxe(7) and [the page](concept-rxe.md).", false},
		{"The rxe0 device and sim0.", false},
		{"The simulation shows it.", false},
		{"Run rdma link add rxe0 type rxe netdev eth0 first.", false},
		{"On SoftRoCE it fails.", true},
	} {
		if got := claims(tt.text); got != tt.want {
			t.Errorf("claims(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	got := blocks("# rxe\n\npara rxe\n<!-- source: x -->\n\n- one rxe\n  more\n  - sub\n- two\n\n```\nrxe\n```\n")
	var lines []int
	for _, b := range got {
		lines = append(lines, b.line)
	}
	if want := []int{3, 6, 8, 9}; !slices.Equal(lines, want) {
		t.Errorf("blocks start on lines %v, want %v", lines, want)
	}
}

// The renderer drops a marker wherever it stands: at the end of a line,
// on its own line under a paragraph or list item (where CommonMark starts
// an HTML block), after a blank line, and inside a paragraph, where it
// leaves neither its text nor the space before it.
func TestRendererHidesMarkers(t *testing.T) {
	for src, want := range map[string]string{
		"rxe does it. <!-- evidence: TestA -->":                 "rxe does it.",
		"rxe does it.\n<!-- source: kernel a.c f -->":           "rxe does it.",
		"- item\n  <!-- evidence: TestB -->\n- next":            "• item\n• next",
		"text\n\n<!-- evidence: TestC -->\n\nend":               "text\n\nend",
		"one <!-- evidence: TestA -->\ntwo":                     "one two",
		"一 <!-- evidence: TestA -->\n二":                         "一二",
		"a <!-- source: verbs/sim/qp.go newQP --> b":            "a b",
		"- one <!-- evidence: TestA -->\n  more\n- two":         "• one more\n• two",
		"# T\n\nrxe.\n<!-- evidence: TestA -->\n\n## Next\n\nx": "T\n═\n\nrxe.\n\nNext\n────\n\nx",
	} {
		if got := termtext.PlainPage("en", "x", src, 60); got != want {
			t.Errorf("%q renders\n%q, want\n%q", src, got, want)
		}
	}
}
