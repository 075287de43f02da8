package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/tui"
)

// runTUI hands the sessions to the full-screen UI. Quitting before the end
// (q or Ctrl-C, which the UI reads as a key) interrupts the tour, as
// Ctrl-C does in plain mode: exit status 130 either way.
func runTUI(ctx context.Context, o options, sessions []steps.Runner) error {
	return tuiOutcome(tui.Run(ctx, tui.Options{Sessions: sessions, Lang: o.lang, Docs: docs.Page, Auto: o.auto}))
}

// tuiOutcome reads tui.Run's result the way plain mode's is read: a quit
// before the end is an interruption.
func tuiOutcome(err error) error {
	if errors.Is(err, tui.ErrQuit) {
		return fmt.Errorf("%w: %w", err, context.Canceled)
	}
	return err
}
