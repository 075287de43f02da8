package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"

	"github.com/rdmatour/rdmatour/record"
	"github.com/rdmatour/rdmatour/text"
)

// replayFlags are the flags "rdmatour replay" takes: how to show the
// recording (the tour itself is fixed by the file).
func (o *options) replayFlags(fs *flag.FlagSet) {
	fs.Var(flagOf(&o.lang, text.ParseLang), "lang", "explanations in `LANG`: en | zh | both (LC_ALL, LC_MESSAGES or LANG picks the default)")
	fs.BoolVar(&o.plain, "plain", false, "print the recording as the plain runner printed it live, instead of the full-screen UI")
	fs.BoolVar(&o.auto, "auto", false, "plain mode: print every step without waiting for Enter")
	fs.BoolVar(&o.brief, "brief", false, "plain mode: leave out the explanation pages (C calls and results only)")
}

// replayPositionals: FILE, or FILE FILE2 (a server's and a client's).
func (o *options) replayPositionals(positional []string) error {
	if len(positional) < 1 || len(positional) > 2 {
		return usagef("replay needs one recorded file, or two (a server's and a client's): rdmatour replay FILE [FILE2]")
	}
	o.replay = positional
	return nil
}

// runReplay plays recorded files back: the TUI (history works, Enter
// steps through the recorded steps) or, with --plain, the text the plain
// runner printed live. No device is opened and no peer is needed.
func runReplay(ctx context.Context, o options, c console) error {
	rec, err := readRecording(o.replay[0])
	if err != nil {
		return err
	}
	if len(o.replay) == 2 {
		other, err := readRecording(o.replay[1])
		if err != nil {
			return err
		}
		if rec, err = record.Merge(rec, other); err != nil {
			return &replayError{msg: err.Error()}
		}
	}
	sessions, err := rec.Runners()
	if err != nil {
		return &replayError{msg: fmt.Sprintf("%s: %v", o.replay[0], err)}
	}
	return present(ctx, o, c, sessions)
}

// readRecording decodes one file; every problem names the file (and the
// line, for a damaged one).
func readRecording(path string) (*record.Recording, error) {
	rec, err := record.ReadFile(path)
	var pe *fs.PathError
	switch {
	case err == nil:
		return rec, nil
	case errors.As(err, &pe):
		return nil, &replayError{msg: fmt.Sprintf("cannot open %s: %v", path, pe.Err)}
	}
	return nil, &replayError{msg: fmt.Sprintf("cannot replay %s", err)}
}

// replayError is a recording that cannot be replayed: exit status 1 with
// the reason, which names the file and line.
type replayError struct{ msg string }

func (e *replayError) Error() string { return e.msg }
