package explain

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rdmatour/rdmatour/text"
)

// UnknownCodeError is a code no table knows, with the closest names.
type UnknownCodeError struct {
	Query       string
	Suggestions []string
}

func (e *UnknownCodeError) Error() string { return e.Text().EN }

// Text says so in both languages, with the closest names and examples.
func (e *UnknownCodeError) Text() text.Text {
	t := text.Text{
		EN: fmt.Sprintf("%q is not an errno, a wc.status, a CM event or status, or an AETH syndrome rdmatour knows", e.Query),
		ZH: fmt.Sprintf("%q 不是 rdmatour 认识的 errno、wc.status、CM 事件或其 status、AETH syndrome", e.Query),
	}
	if len(e.Suggestions) > 0 {
		t.EN += "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
		t.ZH += "；你是不是想找 " + strings.Join(e.Suggestions, "、") + "？"
	}
	const examples = `ENOMEM, 12, IBV_WC_RETRY_EXC_ERR, "transport retry counter exceeded", RDMA_CM_EVENT_REJECTED, 0x60`
	t.EN += " (examples: " + examples + ")"
	t.ZH += "（例如：" + examples + "）"
	return t
}

// Explain returns every reading of code: a number (decimal, negative
// for an event->status errno, or 0x hex, which is read as an AETH
// syndrome first) or a name (C name with or without its prefix, or the
// words the library prints).
func Explain(code string) ([]Meaning, error) {
	q := strings.TrimSpace(code)
	if field, num, ok := strings.Cut(q, " "); ok {
		if read, known := fieldReaders[strings.ToLower(field)]; known {
			if n, _, isNum := parseNumber(strings.TrimSpace(num)); isNum {
				if m, ok := read(n); ok {
					return []Meaning{m}, nil
				}
				return nil, &UnknownCodeError{Query: q}
			}
		}
	}
	if n, hex, ok := parseNumber(q); ok {
		if ms := byNumber(n, hex); len(ms) > 0 {
			return ms, nil
		}
		return nil, &UnknownCodeError{Query: q}
	}
	if ms := byName(q); len(ms) > 0 {
		return ms, nil
	}
	return nil, &UnknownCodeError{Query: q, Suggestions: suggest(q)}
}

// fieldReaders read a number given with its field: "status 28",
// "errno 12", "wc.status 12", "event 8", "syndrome 0x60".
var fieldReaders = map[string]func(int) (Meaning, bool){
	"errno": errnoMeaning, "status": cmStatusMeaning, "event->status": cmStatusMeaning,
	"wc.status": wcStatusMeaning, "event": cmEventMeaning, "syndrome": syndromeMeaning,
}

// parseNumber reads "12", "-110" or "0x60".
func parseNumber(q string) (n int, hex, ok bool) {
	if h, found := strings.CutPrefix(strings.ToLower(q), "0x"); found {
		v, err := strconv.ParseUint(h, 16, 31)
		return int(v), true, err == nil
	}
	v, err := strconv.ParseInt(q, 10, 32)
	return int(v), false, err == nil
}

// byNumber lists every field n can be a value of.
func byNumber(n int, hex bool) []Meaning {
	var out []Meaning
	add := func(m Meaning, ok bool) {
		if ok {
			out = append(out, m)
		}
	}
	if hex {
		add(syndromeMeaning(n))
	}
	add(errnoMeaning(n))
	add(wcStatusMeaning(n))
	add(cmEventMeaning(n))
	add(cmStatusMeaning(n))
	return out
}

// all is every named meaning, for lookup by name: each errno verbs
// names, every wc.status, CM event and REJ reason, and the syndromes
// with names of their own.
func all() []Meaning {
	var out []Meaning
	for n := 1; n <= maxErrno; n++ {
		if m, ok := errnoMeaning(n); ok {
			out = append(out, m)
		}
	}
	for n := 0; n < wcStatusCount; n++ {
		m, _ := wcStatusMeaning(n)
		out = append(out, m)
	}
	for n := 0; n < cmEventCount; n++ {
		m, _ := cmEventMeaning(n)
		out = append(out, m)
	}
	for n := 1; n <= 64; n++ {
		if m, ok := cmStatusMeaning(n); ok {
			out = append(out, m)
		}
	}
	for _, n := range []int{0x1F, 0x20, 0x60, 0x61, 0x62, 0x63, 0x64} {
		m, _ := syndromeMeaning(n)
		out = append(out, m)
	}
	return out
}

// prefixes are the C prefixes a learner may leave out.
var prefixes = []string{"IBV_WC_", "RDMA_CM_EVENT_", "IB_CM_REJ_"}

// names are the ways a meaning may be asked for, normalized.
func names(m Meaning) []string {
	out := []string{normalize(m.Name)}
	for _, p := range prefixes {
		if short, ok := strings.CutPrefix(m.Name, p); ok {
			out = append(out, normalize(short))
		}
	}
	if m.Printed != "" {
		out = append(out, normalize(m.Printed))
	}
	if m.Kind == KindSyndrome && m.Number == 0x20 {
		out = append(out, "RNR NAK")
	}
	return out
}

func normalize(s string) string { return strings.Join(strings.Fields(strings.ToUpper(s)), " ") }

// byName finds the meanings whose name is q; failing that, those whose
// printed words start with q (at least two words: "NAK remote access").
func byName(q string) []Meaning {
	nq := normalize(q)
	var exact, prefix []Meaning
	for _, m := range all() {
		for _, n := range names(m) {
			if n == nq {
				exact = append(exact, m)
				break
			}
			if strings.Contains(nq, " ") && strings.HasPrefix(n, nq) {
				prefix = append(prefix, m)
				break
			}
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return prefix
}

// suggest lists up to three names closest to q.
func suggest(q string) []string {
	nq := normalize(q)
	type scored struct {
		name string
		d    int
	}
	var cands []scored
	seen := map[string]bool{}
	for _, m := range all() {
		for _, n := range names(m) {
			if seen[n] {
				continue
			}
			seen[n] = true
			if d := distance(nq, n); d <= max(2, len(nq)/3) {
				cands = append(cands, scored{m.Name, d})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].d < cands[j].d })
	var out []string
	for _, c := range cands {
		if len(out) < 3 && !contains(out, c.name) {
			out = append(out, c.name)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
