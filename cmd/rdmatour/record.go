package main

import (
	"fmt"

	"github.com/rdmatour/rdmatour/record"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// recordOut is --record FILE: the file and the writer the sessions report
// to. A zero recordOut (no --record) does nothing.
type recordOut struct {
	path string
	f    *outFile
	w    *record.Writer
}

// openRecord creates the file before anything runs, so a path that cannot
// be written is refused up front.
func openRecord(o options) (*recordOut, error) {
	if o.record == "" {
		return &recordOut{}, nil
	}
	f, err := openOut("--record", o.record)
	if err != nil {
		return nil, err
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
	// The header is queued: a full device says so before the first step.
	if err := r.f.settle(closeWait); err != nil {
		return usagef("--record %s: %v", r.path, err)
	}
	return nil
}

// finish closes the file and reports the first write error.
func (r *recordOut) finish() error {
	if r.f == nil {
		return nil
	}
	if werr := r.w.Err(); werr != nil {
		r.f.Close()
		return fmt.Errorf("--record %s: %w", r.path, werr)
	}
	return r.f.Close() // names the flag and the path

}
