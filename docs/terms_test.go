package docs_test

// The glossary is data: docs/terms.tsv names, for each thing, the English
// term, the one Chinese word the pages and the screen use for it, and the
// variants that must not appear. These tests hold every Chinese text to
// it: the zh pages (README included), the Chinese strings of the program
// (string literals with Han characters in its non-test Go files: the
// TUI's labels, step titles, notes and results, doctor) and the Chinese
// comments of the seed program.
//
// A variant is a literal string, or a Go regexp after "re:". Before
// matching, a text loses what quotes English rather than writing Chinese:
// an English gloss in full-width parentheses ("完成（work completion）")
// and ASCII text in double quotes, "..." or “...” (a sentence quoted from
// a man page).
// What is left may still contain a variant on purpose (the glossary
// saying which word it does not use); allowedPhrases lists those, each
// with its reason.

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// term is one row of terms.tsv.
type term struct {
	en, zh    string
	forbidden []variant
	note      string
}

// variant is a word that must not stand for a term.
type variant struct {
	text string         // as written in terms.tsv
	re   *regexp.Regexp // the literal quoted, or the re: pattern
}

// allowedPhrases are texts that contain a variant on purpose; each is
// blanked out before matching.
var allowedPhrases = map[string]string{
	"不叫“完成事件”": "the glossary names the word it does not use",
	"负载高时":     "CPU load, not a packet's payload",
}

// loadTerms reads terms.tsv: a tab-separated table, one term a line,
// "#" lines are comments; variants are separated by "; ".
func loadTerms(t *testing.T) []term {
	t.Helper()
	f, err := os.Open("terms.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []term
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 4 || cols[0] == "" || cols[1] == "" {
			t.Fatalf("terms.tsv:%d: want 4 tab-separated columns (en, zh, forbidden, note), got %q", n, line)
		}
		out = append(out, term{en: cols[0], zh: cols[1], forbidden: parseVariants(t, n, cols[2]), note: cols[3]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func parseVariants(t *testing.T, line int, col string) []variant {
	var out []variant
	for _, v := range strings.Split(col, "; ") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		pat := regexp.QuoteMeta(v)
		if p, ok := strings.CutPrefix(v, "re:"); ok {
			pat = p
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			t.Fatalf("terms.tsv:%d: variant %q: %v", line, v, err)
		}
		out = append(out, variant{v, re})
	}
	return out
}

// quotedEnglish matches an English gloss in full-width parentheses and
// ASCII text in double quotes ("..." or “...”, across a line break too):
// quotations, not Chinese wording.
var quotedEnglish = regexp.MustCompile(`（[\x20-\x7e，、]+(，保留原词)?）|"[\x20-\x21\x23-\x7e]+"|“[\x20-\x7e\n]+”`)

// chineseText is what of text the variants are held against.
func chineseText(text string) string {
	text = hanLinesOfCode(text)
	text = quotedEnglish.ReplaceAllStringFunc(text, blank)
	for p := range allowedPhrases {
		text = strings.ReplaceAll(text, p, blank(p))
	}
	return text
}

// hanLinesOfCode blanks the lines of fenced code blocks that have no
// Han character: C code and English program output are not Chinese
// wording, a Chinese comment in them is.
func hanLinesOfCode(page string) string {
	lines := strings.Split(page, "\n")
	inFence := false
	for i, l := range lines {
		fence := strings.HasPrefix(strings.TrimSpace(l), "```")
		if fence {
			inFence = !inFence
		}
		if (fence || inFence) && !hasHan(l) {
			lines[i] = blank(l)
		}
	}
	return strings.Join(lines, "\n")
}

// blank keeps line numbers and offsets: every rune becomes a space.
func blank(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		return ' '
	}, s)
}

// checkVariants reports every forbidden variant in text; where says
// where text comes from, firstLine is the line text starts on.
func checkVariants(t *testing.T, terms []term, where string, firstLine int, text string) {
	t.Helper()
	text = chineseText(text)
	for _, tm := range terms {
		for _, v := range tm.forbidden {
			for _, loc := range v.re.FindAllStringIndex(text, -1) {
				line := firstLine + strings.Count(text[:loc[0]], "\n")
				t.Errorf("%s:%d: %q is not the word for %q: write %q (terms.tsv)",
					where, line, strings.TrimSpace(text[loc[0]:loc[1]]), tm.en, tm.zh)
			}
		}
	}
}

func TestTermsTable(t *testing.T) {
	terms := loadTerms(t)
	seen := map[string]bool{}
	for _, tm := range terms {
		if seen[tm.en] {
			t.Errorf("terms.tsv: %q twice", tm.en)
		}
		seen[tm.en] = true
		for _, v := range tm.forbidden {
			if v.re.MatchString(tm.zh) {
				t.Errorf("terms.tsv: %q: the chosen word %q matches its own variant %q", tm.en, tm.zh, v.text)
			}
		}
	}
}

func TestZhPagesUseTheTerms(t *testing.T) {
	terms := loadTerms(t)
	for name, page := range pagesAndREADMEs(t) {
		if strings.HasPrefix(name, "zh/") || name == "../README.zh" {
			checkVariants(t, terms, pageFile(name), 1, page)
		}
	}
}

func TestSeedProgramUsesTheTerms(t *testing.T) {
	terms := loadTerms(t)
	files, err := filepath.Glob("../testdata/seed/*.c")
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed program in testdata/seed: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The whole program is code: only its Chinese comment lines count.
		checkVariants(t, terms, strings.TrimPrefix(f, "../"), 0, "```\n"+string(b)+"\n```")
	}
}

func TestZhProgramStringsUseTheTerms(t *testing.T) {
	terms := loadTerms(t)
	n := 0
	for _, s := range chineseGoStrings(t, "..") {
		n++
		checkVariants(t, terms, s.where, s.line, s.text)
	}
	if n < 100 {
		t.Errorf("found only %d Chinese string literals in the program: is the scan looking in the right place?", n)
	}
}

// goString is one Chinese string literal of the program.
type goString struct {
	where string
	line  int
	text  string
}

// chineseGoStrings returns the string literals containing Han characters
// in the non-test Go files under root (testdata and hidden folders left
// out).
func chineseGoStrings(t *testing.T, root string) []goString {
	t.Helper()
	var out []goString
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		out = append(out, fileChineseStrings(t, p)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fileChineseStrings(t *testing.T, file string) []goString {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []goString
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil || !hasHan(s) {
			return true
		}
		rel, _ := filepath.Rel("..", file)
		out = append(out, goString{rel, fset.Position(lit.Pos()).Line, s})
		return true
	})
	return out
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

func TestGlossaryPagesMatchTheTerms(t *testing.T) {
	pages := allPages(t)
	en, zh := glossaryEntries(pages["en/glossary"]), glossaryEntries(pages["zh/glossary"])
	inTable := map[string]bool{}
	for _, tm := range loadTerms(t) {
		inTable["en "+tm.en], inTable["zh "+tm.zh] = true, true
		if !en[tm.en] {
			t.Errorf("docs/en/glossary.md has no entry **%s** (terms.tsv)", tm.en)
		}
		if !zh[tm.zh] {
			t.Errorf("docs/zh/glossary.md has no entry **%s** (terms.tsv, for %q)", tm.zh, tm.en)
		}
	}
	// And the other way: a new glossary entry goes into the table too.
	for lang, entries := range map[string]map[string]bool{"en": en, "zh": zh} {
		for e := range entries {
			if !inTable[lang+" "+e] {
				t.Errorf("docs/%s/glossary.md: entry **%s** is not in terms.tsv", lang, e)
			}
		}
	}
}

// glossaryEntry matches a glossary list item's bold term.
var glossaryEntry = regexp.MustCompile(`(?m)^- \*\*([^*]+)\*\*`)

func glossaryEntries(page string) map[string]bool {
	out := map[string]bool{}
	for _, m := range glossaryEntry.FindAllStringSubmatch(page, -1) {
		out[m[1]] = true
	}
	return out
}
