package main

import (
	"fmt"
	"os"

	"github.com/rdmatour/rdmatour/record"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// recordOut is --record FILE: the file and the writer the sessions report
// to. A zero recordOut (no --record) does nothing.
type recordOut struct {
	path string
	f    *os.File
	w    *record.Writer
}

// openRecord creates the file before anything runs, so a path that cannot
// be written is refused up front.
func openRecord(o options) (*recordOut, error) {
	if o.record == "" {
		return &recordOut{}, nil
	}
	f, err := os.Create(o.record)
	if err != nil {
		return nil, usagef("--record %s: %v", o.record, err)
	}
	return &recordOut{path: o.record, f: f, w: record.NewWriter(f, version, string(o.cmd))}, nil
}

// attach makes cfg report its steps to the file.
func (r *recordOut) attach(cfg *steps.Config) {
	if r.w != nil {
		cfg.Recorder = r.w.Side(cfg.Role)
	}
}

// begin writes the header, naming the devices prov sees.
func (r *recordOut) begin(prov verbs.Provider, sessions []steps.Runner) error {
	if r.w == nil {
		return nil
	}
	var names []string
	if devs, err := prov.Devices(); err == nil {
		for _, d := range devs {
			names = append(names, d.Name)
		}
	}
	if err := r.w.Begin(names, sessions...); err != nil {
		return fmt.Errorf("--record %s: %w", r.path, err)
	}
	return nil
}

// finish closes the file and reports the first write error.
func (r *recordOut) finish() error {
	if r.f == nil {
		return nil
	}
	werr := r.w.Err()
	if err := r.f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("--record %s: %w", r.path, werr)
	}
	return nil
}
