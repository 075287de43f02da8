// Package termtext is text for a terminal: cell widths (CJK wide,
// East Asian ambiguous narrow, escape sequences zero), cutting and
// padding to a width, wrapping plain and styled lines (Chinese rules
// included), Markdown pages drawn as lines, and the escaping that keeps
// a peer's bytes from reaching the terminal as control sequences.
//
// It serves both front ends, the TUI (tui, tui/pane) and the plain
// runner (plain), so it knows neither: it may import no package of
// rdmatour but steps/privdata, and that only for privdata.EscapePeer (the one
// escaping a peer's bytes get everywhere).
package termtext
