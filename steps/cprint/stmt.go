package cprint

import "strings"

// Check is how the exported program checks a statement's result.
type Check int

const (
	// NoCheck: the statement returns nothing worth checking.
	NoCheck Check = iota
	// NonZero fails when the call returns non-zero (rdma_* set errno and
	// return -1; ibv_post_* and posix_memalign return the errno).
	NonZero
	// Null fails when the assigned pointer is NULL (errno is set).
	Null
)

// Show says in which rendering a statement appears.
type Show int

const (
	Both       Show = iota
	ScreenOnly      // what happened this run, where the program branches
	ExportOnly      // a check or a helper the screen leaves out
)

// Stmt is one C statement.
type Stmt struct {
	Code Expr
	// Result is what the call returned, shown after it as a comment on
	// screen ("0", "1: wc = {...}", "{ .handle = 1 }"); "" for none.
	Result string
	// Note is a comment about the statement for the screen, where it
	// returns nothing worth showing ("" for none).
	Note string
	// Hint is the comment of the Generic rendering: what the call is
	// for, before it runs ("" for none).
	Hint  string
	Check Check
	// What names the call in the exported program's error message.
	What string
	Show Show
}

// S is a statement without a check.
func S(code Expr) Stmt { return Stmt{Code: code} }

// Must is a call checked for non-zero.
func Must(what string, code Expr) Stmt { return Stmt{Code: code, Check: NonZero, What: what} }

// MustPtr is lhs = call, checked for NULL.
func MustPtr(what, lhs string, call Expr) Stmt {
	return Stmt{Code: Assign(lhs, call), Check: Null, What: what}
}

// Returned sets the result comment.
func (s Stmt) Returned(result string) Stmt { s.Result = result; return s }

// Noted sets the screen comment of a statement that has no result.
func (s Stmt) Noted(note string) Stmt { s.Note = note; return s }

// Hinted sets the comment of the Generic rendering.
func (s Stmt) Hinted(hint string) Stmt { s.Hint = hint; return s }

// Only sets where the statement shows.
func (s Stmt) Only(sh Show) Stmt { s.Show = sh; return s }

// Screen is the statement as the screen shows it: actual values and the
// result as a trailing comment.
func (s Stmt) Screen() string {
	line := s.Code.actual + ";"
	switch {
	case s.Result != "":
		line += " /* = " + comment(s.Result) + " */"
	case s.Note != "":
		line += " /* " + comment(s.Note) + " */"
	}
	return line
}

// Generic is the statement as the screen shows it before it runs.
func (s Stmt) Generic() string {
	line := s.Code.generic + ";"
	if s.Hint != "" {
		line += " /* " + comment(s.Hint) + " */"
	}
	return line
}

// Program is the statement as the exported program runs it: symbolic,
// with its result checked (check() and die() are the program's helpers).
func (s Stmt) Program() string {
	code := s.Code.symbolic
	switch s.Check {
	case NonZero:
		return "check(" + code + ", " + Str(s.What).actual + ");"
	case Null:
		return "if (!(" + code + ")) die(" + Str(s.What).actual + ");"
	}
	return code + ";"
}

// comment keeps text from ending the comment it is put in.
func comment(s string) string { return strings.ReplaceAll(s, "*/", "* /") }

// Lines renders the statements shown in m, one per line: Screen lines for
// Actual, Program lines for Symbolic, Generic lines for Generic.
func Lines(stmts []Stmt, m Mode) string {
	var out []string
	for _, s := range stmts {
		switch {
		case m == Actual && s.Show != ExportOnly:
			out = append(out, s.Screen())
		case m == Generic && s.Show != ExportOnly:
			out = append(out, s.Generic())
		case m == Symbolic && s.Show != ScreenOnly:
			out = append(out, s.Program())
		}
	}
	return strings.Join(out, "\n")
}
