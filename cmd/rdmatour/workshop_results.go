package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/workshop"
)

// resultsFiles are where --results writes the room's results: the CSV
// the flag names and the JSON lines beside it. Each save replaces both
// whole (a temporary file renamed over the old one), so a spreadsheet
// open on the CSV never sees half a file, and s on the roster can save
// as often as the instructor likes.
type resultsFiles struct{ csv, jsonl string }

// jsonlPath is the JSON lines' file beside the CSV: its name with .jsonl.
func jsonlPath(csvPath string) string {
	return strings.TrimSuffix(csvPath, filepath.Ext(csvPath)) + ".jsonl"
}

// newResultsFiles checks, before the room opens, that both files can be
// written: a regular file (or none yet) in a folder that exists and may
// be written. Devices and FIFOs are refused: a results file is read
// later, by a person or a script, not streamed.
func newResultsFiles(path string) (*resultsFiles, error) {
	if path == "" {
		return nil, nil
	}
	if strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return nil, usagef("--results %s: give the CSV's name (e.g. results.csv); the JSON lines go beside it, as results.jsonl", path)
	}
	r := &resultsFiles{csv: path, jsonl: jsonlPath(path)}
	for _, p := range []string{r.csv, r.jsonl} {
		if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
			return nil, usagef("--results %s: %s is not a regular file; name a file to write the results into", path, p)
		}
		probe, err := os.CreateTemp(filepath.Dir(p), ".rdmatour-results-*")
		if err != nil {
			return nil, usagef("--results %s: cannot write in %s: %v", path, filepath.Dir(p), err)
		}
		probe.Close()
		os.Remove(probe.Name())
	}
	return r, nil
}

// save writes the room's results now, and says where.
func (r *resultsFiles) save(room *workshop.Room, tour steps.TourKind) (string, error) {
	results := workshop.Results(room.Roster(), tour, time.Now())
	var c, j bytes.Buffer
	if err := workshop.WriteCSV(&c, results); err != nil {
		return "", err
	}
	if err := workshop.WriteJSONLines(&j, results); err != nil {
		return "", err
	}
	if err := replaceFile(r.csv, c.Bytes()); err != nil {
		return "", err
	}
	if err := replaceFile(r.jsonl, j.Bytes()); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d attendees' results in %s and %s", len(results), r.csv, r.jsonl), nil
}

// replaceFile puts b in path whole: written beside it, then renamed.
func replaceFile(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".rdmatour-results-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, nothing is there
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// saveTo is the plain room's `results [FILE]`: to FILE (checked as
// --results is), or where --results says when no FILE is given.
func saveTo(room *workshop.Room, o options, save func() (string, error)) func(path string) (string, error) {
	return func(path string) (string, error) {
		if path == "" {
			return save()
		}
		r, err := newResultsFiles(path)
		if err != nil {
			return "", err
		}
		return r.save(room, o.tour)
	}
}

// writeMisconceptions prints the picks that differed from what really
// happened, most common first: what the instructor takes to the next
// class.
func writeMisconceptions(w io.Writer, ms []workshop.Misconception) {
	if len(ms) == 0 {
		return
	}
	fmt.Fprintln(w, "misconceptions (picks that differed from what happened, judged from each attendee's QP):")
	for _, m := range ms {
		fmt.Fprintf(w, "  %3d× lesson %s: picked %s; happened %s\n", m.Count, m.Lesson, m.Picked.EN, m.Happened.EN)
	}
}
