// Package pane draws the TUI's panes: the steps, the C call, the
// explanation, the live state, the timeline and the wire. Each renders
// to a given width from an explicit Input, which the TUI's root model
// fills once per Update; a pane reads nothing else, so the workshop
// screen reuses them by filling an Input of its own. Frame and Scroll
// draw the box around a pane and keep its scroll offset.
//
// Labels, tables, wording and styles go with the panes. pane may import
// steps, verbs, docs, guide and termtext; never tui.
package pane
