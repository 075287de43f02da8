package docs_test

// These tests hold the pages to the references they lean on: the man
// pages they cite must exist, and every verbs or rdma_cm name in a code
// span must be one the rdma-core headers declare. Both come with
// libibverbs-dev and librdmacm-dev (the test deps install them); without
// them the tests skip and say so.

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/docs"
)

const manRoot = "/usr/share/man"

// headerGlobs are the rdma-core headers whose identifiers a page may name.
var headerGlobs = []string{"/usr/include/infiniband/*.h", "/usr/include/rdma/*.h"}

// manCitation matches "name(N)". Section 1 is left out on purpose: in
// code, `htobe64(1)` is a call, not a citation.
var manCitation = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_.-]*)\(([2-8])\)`)

// codeSpan matches an inline code span on one line.
var codeSpan = regexp.MustCompile("`([^`\n]+)`")

// apiName matches a name in the verbs or rdma_cm namespace.
var apiName = regexp.MustCompile(`\b(?:ibv|rdma|IBV|RDMA)_[A-Za-z0-9_]+`)

// notAPI are names in that namespace that are not meant as API names;
// each says what it is instead.
var notAPI = map[string]string{
	"RDMA_WRITE_DONE": "the notification text the seed and rdmatour send",
	"ibv_devinfo":     "a command of the ibverbs-utils package",
	"ibv_devices":     "a command of the ibverbs-utils package",
	"ibv_rc_pingpong": "an example program of the ibverbs-utils package",
	"ibv_ud_pingpong": "an example program of the ibverbs-utils package",
	"rdma_cm":         "the kernel's connection manager and its device file",
	"rdma_rxe":        "the Soft-RoCE kernel module",
	"rdma_ucm":        "the kernel module behind /dev/infiniband/rdma_cm",
}

// allPages returns every page (README included) as lang/id -> Markdown.
func allPages(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, lang := range docs.Langs() {
		for _, id := range append(docs.IDs(lang), "README") {
			page, err := docs.Page(lang, id)
			if err != nil {
				t.Fatalf("%s/%s: %v", lang, id, err)
			}
			out[lang+"/"+id] = page
		}
	}
	return out
}

// manPageExists reports whether /usr/share/man/manN/name.N* exists.
func manPageExists(name, section string) bool {
	matches, _ := filepath.Glob(filepath.Join(manRoot, "man"+section, name+"."+section+"*"))
	return len(matches) > 0
}

func TestCitedManPagesExist(t *testing.T) {
	if !manPageExists("ibv_post_send", "3") || !manPageExists("rdma_cm", "7") {
		t.Skip("rdma-core man pages are not installed (apt-get install libibverbs-dev librdmacm-dev): cannot check citations")
	}
	// Pages may also cite libc and system calls; those come with
	// manpages-dev, which the check needs before it can blame a page.
	haveManpagesDev := manPageExists("bind", "2")
	cited := 0
	for name, page := range allPages(t) {
		for _, m := range manCitation.FindAllStringSubmatch(page, -1) {
			cited++
			topic, section := m[1], m[2]
			if manPageExists(topic, section) {
				continue
			}
			rdma := strings.HasPrefix(topic, "ibv_") || strings.HasPrefix(topic, "rdma_")
			if !rdma && !haveManpagesDev {
				t.Logf("%s cites %s(%s): not checked, manpages-dev is not installed", name, topic, section)
				continue
			}
			t.Errorf("docs/%s.md cites %s(%s), but there is no %s/man%s/%s.%s*", name, topic, section, manRoot, section, topic, section)
		}
	}
	if cited == 0 {
		t.Fatal("no page cites a man page as name(N): the pattern no longer matches the pages")
	}
}

// headerIdentifiers returns every identifier the rdma-core headers
// contain, or nil when they are not installed.
func headerIdentifiers(t *testing.T) map[string]bool {
	t.Helper()
	word := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	ids := map[string]bool{}
	for _, g := range headerGlobs {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatalf("reading %s: %v", f, err)
			}
			for _, w := range word.FindAllString(string(b), -1) {
				ids[w] = true
			}
		}
	}
	if !ids["ibv_post_send"] || !ids["rdma_connect"] {
		return nil
	}
	return ids
}

func TestCodeSpansNameRealAPI(t *testing.T) {
	known := headerIdentifiers(t)
	if known == nil {
		t.Skip("rdma-core headers are not installed (apt-get install libibverbs-dev librdmacm-dev): cannot check API names")
	}
	unknown := map[string][]string{}
	checked := 0
	for name, page := range allPages(t) {
		for _, span := range codeSpan.FindAllStringSubmatch(page, -1) {
			for _, tok := range apiName.FindAllString(span[1], -1) {
				checked++
				if known[tok] || notAPI[tok] != "" {
					continue
				}
				unknown[tok] = append(unknown[tok], name)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no code span names a verbs or rdma_cm API: the pattern no longer matches the pages")
	}
	toks := make([]string, 0, len(unknown))
	for tok := range unknown {
		toks = append(toks, tok)
	}
	sort.Strings(toks)
	for _, tok := range toks {
		t.Errorf("%s is in a code span but in no header under /usr/include/{infiniband,rdma} (pages: %v)", tok, unknown[tok])
	}
}

// cNotation lists C spellings that look right in prose and are wrong in a
// program.
var cNotation = []struct {
	bad  *regexp.Regexp
	only func(span string) bool // nil: every span
	why  string
}{
	{regexp.MustCompile(`\b(?:htonll|ntohll)\s*\(`), nil,
		"htonll/ntohll are not libc functions: use htobe64/be64toh from <endian.h>"},
	{regexp.MustCompile(`(?:^|[^.\w])wr\.rdma\.`), nil,
		"a struct ibv_send_wr named wr reaches the RDMA fields as wr.wr.rdma.*"},
	{regexp.MustCompile(`(?:^|[^_A-Z])(?:LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC)\b`),
		func(span string) bool { return strings.Contains(span, "(") },
		"in a call, access flags are spelled IBV_ACCESS_*"},
	{regexp.MustCompile(`\(\s*\{|,\s*\{\s*[a-z_]+\s*=`), nil,
		"a struct argument needs a compound literal: &(struct ibv_qp_attr){ .qp_state = ... }"},
}

func TestCodeSpansAreValidC(t *testing.T) {
	for name, page := range allPages(t) {
		for _, span := range codeSpan.FindAllStringSubmatch(page, -1) {
			for _, rule := range cNotation {
				if rule.only != nil && !rule.only(span[1]) {
					continue
				}
				if rule.bad.MatchString(span[1]) {
					t.Errorf("docs/%s.md: `%s`: %s", name, span[1], rule.why)
				}
			}
		}
	}
}

func TestCNotationRules(t *testing.T) {
	// Each rule must catch the mistake it is for and pass the fix.
	cases := []struct {
		span    string
		flagged bool
	}{
		{"htonll(1)", true},
		{"htobe64(1)", false},
		{"htonll_u64", false},
		{"wr.rdma.rkey", true},
		{"wr.wr.rdma.rkey", false},
		{"ibv_reg_mr(pd, buf, 4096, LOCAL_WRITE | REMOTE_WRITE)", true},
		{"ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE)", false},
		{"REMOTE_WRITE", false},
		{"ibv_modify_qp(qp, {qp_state = IBV_QPS_ERR}, IBV_QP_STATE)", true},
		{"ibv_modify_qp(qp, &(struct ibv_qp_attr){ .qp_state = IBV_QPS_ERR }, IBV_QP_STATE)", false},
	}
	for _, c := range cases {
		flagged := false
		for _, rule := range cNotation {
			if (rule.only == nil || rule.only(c.span)) && rule.bad.MatchString(c.span) {
				flagged = true
			}
		}
		if flagged != c.flagged {
			t.Errorf("`%s`: flagged=%v, want %v", c.span, flagged, c.flagged)
		}
	}
}
