package main

import (
	"context"
	"errors"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/tui"
)

// runTUI hands the sessions to the full-screen UI. Quitting before the end
// is the learner's choice, not a failure of the tour.
func runTUI(ctx context.Context, o options, sessions []*steps.Session) error {
	err := tui.Run(ctx, tui.Options{Sessions: sessions, Lang: o.lang, Docs: docs.Page})
	if errors.Is(err, tui.ErrQuit) {
		return nil
	}
	return err
}
