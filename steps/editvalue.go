package steps

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rdmatour/rdmatour/text"
)

// valueError is why a value does not fit its field; ParseEdit wraps it
// in an EditError with the field's range.
type valueError struct{ reason text.Text }

func (e *valueError) Error() string { return e.reason.EN }

func badValue(en, zh string) error { return &valueError{reason: text.Text{EN: en, ZH: zh}} }

// parse reads raw as a value of f, checking its range. A value past a
// Bound is refused with the Bound's reason.
func (f EditField) parse(raw string) (EditValue, error) {
	v := EditValue{Raw: raw}
	switch f.Kind {
	case EditFlags:
		return v, f.parseFlags(raw, &v)
	case EditEnum:
		ch, ok := f.choice(raw)
		if !ok {
			return v, badValue(fmt.Sprintf("%q is not one of the choices", raw), fmt.Sprintf("%q 不在可选值里", raw))
		}
		v.Num = int64(ch.Value)
		return v, nil
	case EditKey:
		return v, parseKey(raw, &v)
	case EditText:
		if int64(len(raw)) > f.Max {
			return v, badValue(fmt.Sprintf("%d bytes; at most %d fit", len(raw), f.Max), fmt.Sprintf("%d 字节；最多放得下 %d 字节", len(raw), f.Max))
		}
		if strings.IndexByte(raw, 0) >= 0 {
			return v, badValue("a NUL byte would end the C string early", "NUL 字节会提前结束 C 字符串")
		}
		if !printable(raw) {
			// An edit is shown back (Try next, a recording's header): it
			// must not carry terminal control sequences. --message takes bytes.
			return v, badValue("only printable text; give other bytes with --message", "只能是可打印的文字；其他字节请用 --message 给出")
		}
		v.Text = raw
		return v, nil
	}
	n, ok := parseNum(raw)
	if !ok {
		return v, badValue(fmt.Sprintf("%q is not a number", raw), fmt.Sprintf("%q 不是数字", raw))
	}
	if n < f.Min || n > f.Max {
		if f.Bound.EN != "" && n > f.Max {
			return v, &valueError{reason: text.Text{EN: fmt.Sprintf("%d is refused: %s", n, f.Bound.EN), ZH: fmt.Sprintf("%d 被拒绝：%s", n, f.Bound.ZH)}}
		}
		return v, badValue(fmt.Sprintf("%d is outside %d..%d", n, f.Min, f.Max), fmt.Sprintf("%d 不在 %d..%d 之内", n, f.Min, f.Max))
	}
	v.Num = n
	return v, nil
}

// parseFlags reads "A | B", "0", or "+A" / "-B" changes of the default.
func (f EditField) parseFlags(raw string, v *EditValue) error {
	if strings.TrimSpace(raw) == "0" {
		v.Abs = true
		return f.refuseFlags(v)
	}
	parts := strings.Split(raw, "|")
	for _, p := range parts {
		p = strings.TrimSpace(p)
		sign := byte(0)
		if p != "" && (p[0] == '+' || p[0] == '-') {
			sign, p = p[0], strings.TrimSpace(p[1:])
		}
		ch, ok := f.choice(p)
		if !ok {
			return badValue(fmt.Sprintf("%q is not one of the flags", p), fmt.Sprintf("%q 不是可用的标志", p))
		}
		switch sign {
		case '+':
			v.Add |= ch.Value
		case '-':
			v.Del |= ch.Value
		default:
			v.Abs = true
			v.Num |= int64(ch.Value)
		}
	}
	if v.Abs && (v.Add != 0 || v.Del != 0) {
		return badValue("write either the whole set (A | B) or changes (+A | -B), not both", "要么写完整的集合（A | B），要么写改动（+A | -B），不要混用")
	}
	return f.refuseFlags(v)
}

// refuseFlags refuses a flags value the field's Bound forbids: the one
// flag that must stay (send_flags without SIGNALED would make the poll
// wait forever). The bound is the first choice.
func (f EditField) refuseFlags(v *EditValue) error {
	if f.Bound.EN == "" || len(f.Choices) == 0 {
		return nil
	}
	must := f.Choices[0].Value
	if v.Del&must != 0 || (v.Abs && uint64(v.Num)&must == 0) {
		return &valueError{reason: text.Text{EN: "refused: " + f.Bound.EN, ZH: "被拒绝：" + f.Bound.ZH}}
	}
	return nil
}

// choice finds name among f's choices: the C name, in any case, with or
// without its common prefix (REMOTE_WRITE for IBV_ACCESS_REMOTE_WRITE).
func (f EditField) choice(name string) (EditChoice, bool) {
	name = strings.ToUpper(strings.TrimSpace(name))
	if name == "" {
		return EditChoice{}, false
	}
	for _, ch := range f.Choices {
		if ch.CName == name || cPrefixed(ch.CName, name) {
			return ch, true
		}
	}
	return EditChoice{}, false
}

// cPrefixed: short is cname without one of the C prefixes rdmatour's
// choices use, so SEND does not match IBV_WR_SEND_WITH_IMM's tail.
func cPrefixed(cname, short string) bool {
	for _, p := range []string{"IBV_ACCESS_", "IBV_SEND_", "IBV_WR_", "IBV_MTU_", "IBV_QP_"} {
		if cname == p+short {
			return true
		}
	}
	return false
}

// parseKey reads a memory key: rkey, lkey, +N, -N or a number.
func parseKey(raw string, v *EditValue) error {
	switch s := strings.ToLower(strings.TrimSpace(raw)); {
	case s == "rkey" || s == "lkey":
		v.Ref = s
		return nil
	case strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-"):
		n, ok := parseNum(s)
		if !ok || n < -(1<<32-1) || n > 1<<32-1 {
			return badValue(fmt.Sprintf("%q is not a change of the key", raw), fmt.Sprintf("%q 不是对 key 的改动", raw))
		}
		v.Ref, v.Rel, v.Num = "rkey", true, n
		return nil
	default:
		n, ok := parseNum(s)
		if !ok || n < 0 || n > 1<<32-1 {
			return badValue(fmt.Sprintf("%q is not a 32-bit key", raw), fmt.Sprintf("%q 不是 32 位的 key", raw))
		}
		v.Num = n
		return nil
	}
}

// printable: valid UTF-8 with no control character.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
