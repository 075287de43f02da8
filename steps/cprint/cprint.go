// Package cprint prints C: every C line rdmatour shows, and the program
// `rdmatour export-c` writes. An Expr has three renderings: Actual, with
// the values the call really used (the screen after the step ran);
// Symbolic, an expression over the program's variables (the exported
// program); and Generic, the call as the screen shows it before it runs,
// with variable names and the tour's constants where the values will be.
// A Stmt is one C statement; its Actual line ends with the result as a
// comment. Every rendering is valid C99 against <infiniband/verbs.h> and
// <rdma/rdma_cma.h>; the steps package tests that with gcc.
package cprint

import (
	"fmt"
	"strings"
)

// Mode selects a rendering.
type Mode int

const (
	// Actual prints the values the call used: addresses, keys, sizes.
	Actual Mode = iota
	// Symbolic prints expressions over the program's variables.
	Symbolic
	// Generic prints the call before it runs: what the screen shows
	// (Either's screen side), with the variables and constants of
	// Symbolic, and a struct the call fills in by the name of its
	// variable (Named).
	Generic
)

// Expr is a C expression in each rendering. edited says a learner's (or
// a lesson's) value is somewhere inside it (Edited), so a Named struct
// holding it shows its fields before the run; by, on a "was" value, is
// who changed it (By).
type Expr struct {
	actual, symbolic, generic string
	edited                    bool
	by                        string
}

// In renders e.
func (e Expr) In(m Mode) string {
	switch m {
	case Symbolic:
		return e.symbolic
	case Generic:
		return e.generic
	}
	return e.actual
}

// C is code that reads the same in every rendering: a variable, a
// constant, an enumerator.
func C(code string) Expr { return Expr{actual: code, symbolic: code, generic: code} }

// Value is a value the program computes: actual is what it was this run,
// symbolic the expression that computes it (which the generic rendering
// shows too).
func Value(actual, symbolic string) Expr {
	return Expr{actual: actual, symbolic: symbolic, generic: symbolic}
}

// Either takes the screen's renderings (actual, generic) of a and the
// symbolic one of s: the screen shows one call where the program needs a
// loop or a helper.
func Either(a, s Expr) Expr {
	return Expr{actual: a.actual, symbolic: s.symbolic, generic: a.generic, edited: a.edited || s.edited}
}

// Named is e shown before the run by the name of the variable that will
// hold it: a work request or an attribute struct is &wr, not its fields,
// unless an edited value is inside: then the fields, the edit marked, so
// the learner sees the call as it will run.
func Named(name string, e Expr) Expr {
	if e.edited {
		return e
	}
	return Expr{actual: e.actual, symbolic: e.symbolic, generic: name}
}

// Hex is an unsigned value printed in hex, computed by symbolic ("" when
// the program uses the number itself).
func Hex(v uint64, symbolic string) Expr {
	h := fmt.Sprintf("0x%x", v)
	if symbolic == "" {
		symbolic = h
	}
	return Value(h, symbolic)
}

// Dec is an integer printed in decimal, computed by symbolic ("" when the
// program uses the number itself).
func Dec(v int64, symbolic string) Expr {
	d := fmt.Sprint(v)
	if symbolic == "" {
		symbolic = d
	}
	return Value(d, symbolic)
}

// Str is a C string literal of s. Control characters are C escapes (\n)
// and every other byte that is not printable ASCII an octal escape, so
// the literal is valid C and safe on a terminal.
func Str(s string) Expr {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '?':
			b.WriteString(`\?`) // no trigraphs
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		case strings.IndexByte("\a\b\f\n\r\t\v", c) >= 0:
			b.WriteString(map[byte]string{'\a': `\a`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`, '\v': `\v`}[c])
		default:
			fmt.Fprintf(&b, `\%03o`, c)
		}
	}
	b.WriteByte('"')
	return C(b.String())
}

// Call is fn(args...).
func Call(fn string, args ...Expr) Expr {
	return join(fn+"(", args, ", ", ")")
}

// Ref is &e.
func Ref(e Expr) Expr { return wrap("&", e, "") }

// Assign is lhs = e.
func Assign(lhs string, e Expr) Expr { return wrap(lhs+" = ", e, "") }

// Op is the binary expression a op b.
func Op(a Expr, op string, b Expr) Expr { return join("", []Expr{a, b}, " "+op+" ", "") }

// wrap is before + e + after in every rendering.
func wrap(before string, e Expr, after string) Expr {
	return Expr{actual: before + e.actual + after, symbolic: before + e.symbolic + after, generic: before + e.generic + after, edited: e.edited}
}

// Field is one designated initialiser: .Name = Val.
type Field struct {
	Name string
	Val  Expr
}

// F makes a Field.
func F(name string, v Expr) Field { return Field{name, v} }

// Init is a brace initialiser { .a = x, .b = y }.
func Init(fields ...Field) Expr {
	parts := make([]Expr, len(fields))
	for i, f := range fields {
		parts[i] = wrap("."+f.Name+" = ", f.Val, "")
	}
	if len(parts) == 0 {
		return C("{ 0 }")
	}
	return join("{ ", parts, ", ", " }")
}

// Compound is the compound literal (typ){ fields }.
func Compound(typ string, fields ...Field) Expr {
	return wrap("("+typ+")", Init(fields...), "")
}

// Or is a | b | ...; 0 when empty.
func Or(flags ...string) Expr {
	if len(flags) == 0 {
		return C("0")
	}
	return C(strings.Join(flags, " | "))
}

func join(open string, parts []Expr, sep, closing string) Expr {
	var a, s, g []string
	edited := false
	for _, p := range parts {
		a, s, g = append(a, p.actual), append(s, p.symbolic), append(g, p.generic)
		edited = edited || p.edited
	}
	return Expr{actual: open + strings.Join(a, sep) + closing, symbolic: open + strings.Join(s, sep) + closing,
		generic: open + strings.Join(g, sep) + closing, edited: edited}
}

// Edited is e, a value the learner changed, followed by the value the
// tour would have used: `e /* you: was was */` in every rendering (was
// rendered the same way: its number on screen, its expression in the
// program), so the screen, plain output and export-c all show what the
// experiment changed. A lesson's preset says so instead of "you" (was
// given By "lesson bad-rkey"). A "*/" cannot end the comment early.
func Edited(e, was Expr) Expr {
	who := was.by
	if who == "" {
		who = "you"
	}
	who = strings.ReplaceAll(who, "*/", "* /")
	note := func(s string) string { return " /* " + who + ": was " + strings.ReplaceAll(s, "*/", "* /") + " */" }
	return Expr{actual: e.actual + note(was.actual), symbolic: e.symbolic + note(was.symbolic), generic: e.generic + note(was.generic), edited: true}
}

// By is was, the value an edit replaced, marked with who edited it
// ("lesson bad-rkey"; "" is the learner: "you"). Edited prints it.
func (e Expr) By(who string) Expr {
	e.by = who
	return e
}

// Editor is who By says changed e ("" for the learner).
func (e Expr) Editor() string { return e.by }

// Array is the compound literal (typ[]){ e1, e2, ... }: an array of
// elements, as a WR's sg_list with more than one entry.
func Array(typ string, elems ...Expr) Expr {
	return join("("+typ+"[]){ ", elems, ", ", " }")
}
