// Package progress keeps what a learner has done across runs in one small
// versioned JSON file under the XDG state directory
// ($XDG_STATE_HOME/rdmatour/progress.json, by default
// ~/.local/state/rdmatour/progress.json): the exercises started, the
// hints used and the passes, the lessons and tours completed, the
// predictions right and wrong.
//
// Every change is Update: under an exclusive lock on a lock file beside
// the progress file it reads the file, applies the change and writes it
// back through a temporary file and a rename, so two rdmatour processes
// at once lose neither's change and a reader never sees half a file. A
// file that cannot be read (corrupt, or written by a newer rdmatour) is
// set aside under a new name, with a message, never overwritten.
//
// It imports only the standard library.
package progress

import (
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Version is the file format this rdmatour writes and reads.
const Version = 1

// FileName is the progress file's name in its directory.
const FileName = "progress.json"

// File is the progress file's content.
type File struct {
	Version   int                      `json:"version"`
	Exercises map[string]ExerciseState `json:"exercises,omitempty"`
	// Lessons and Tours are the names completed, each once, sorted.
	Lessons []string `json:"lessons,omitempty"`
	Tours   []string `json:"tours,omitempty"`
	// Predictions counts the learner's picks, by lesson name.
	Predictions map[string]Tally `json:"predictions,omitempty"`
}

// ExerciseState is how far the learner got with one exercise.
type ExerciseState struct {
	Started      bool `json:"started,omitempty"`
	Hints        int  `json:"hints,omitempty"`
	SolutionSeen bool `json:"solution_seen,omitempty"`
	Passed       bool `json:"passed,omitempty"`
}

// Tally is how many predictions were right and wrong, and the last one:
// when it was made and whether it was wrong (rdmatour review picks by
// these; a file from before they were kept has them zero).
type Tally struct {
	Right     int       `json:"right,omitempty"`
	Wrong     int       `json:"wrong,omitempty"`
	Last      time.Time `json:"last,omitzero"`
	LastWrong bool      `json:"last_wrong,omitempty"`
}

// Exercise returns the state of exercise name (the zero state if none).
func (f File) Exercise(name string) ExerciseState { return f.Exercises[name] }

// SetExercise stores the state of exercise name.
func (f *File) SetExercise(name string, st ExerciseState) {
	if f.Exercises == nil {
		f.Exercises = map[string]ExerciseState{}
	}
	f.Exercises[name] = st
}

// LessonDone says whether lesson name was completed.
func (f File) LessonDone(name string) bool { return slices.Contains(f.Lessons, name) }

// TourDone says whether tour name was completed.
func (f File) TourDone(name string) bool { return slices.Contains(f.Tours, name) }

// CompleteLesson records lesson name as completed.
func (f *File) CompleteLesson(name string) { f.Lessons = addOnce(f.Lessons, name) }

// CompleteTour records tour name as completed.
func (f *File) CompleteTour(name string) { f.Tours = addOnce(f.Tours, name) }

// Predicted records one prediction in lesson name, right or wrong, made
// at the time given.
func (f *File) Predicted(lesson string, right bool, at time.Time) {
	if f.Predictions == nil {
		f.Predictions = map[string]Tally{}
	}
	t := f.Predictions[lesson]
	if right {
		t.Right++
	} else {
		t.Wrong++
	}
	t.Last, t.LastWrong = at.UTC().Truncate(time.Second), !right
	f.Predictions[lesson] = t
}

// ReviewPicks are up to n lessons whose predictions are worth making
// again: those whose last prediction was wrong first, then the ones not
// predicted for longest; oldest first within each, then by name.
func (f File) ReviewPicks(n int) []string {
	names := make([]string, 0, len(f.Predictions))
	for name := range f.Predictions {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		ta, tb := f.Predictions[a], f.Predictions[b]
		if ta.LastWrong != tb.LastWrong {
			if ta.LastWrong {
				return -1
			}
			return 1
		}
		if c := ta.Last.Compare(tb.Last); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return names[:min(n, len(names))]
}

func addOnce(names []string, name string) []string {
	if slices.Contains(names, name) {
		return names
	}
	names = append(names, name)
	slices.Sort(names)
	return names
}

// DefaultDir is where the progress file lives: $XDG_STATE_HOME/rdmatour,
// else $HOME/.local/state/rdmatour. getenv is os.Getenv in the program;
// an environment with neither (a test's) is a *NoHomeError, so nothing is
// written into a home directory nobody named.
func DefaultDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "rdmatour"), nil
	}
	if home := getenv("HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state", "rdmatour"), nil
	}
	return "", &NoHomeError{}
}

// NoHomeError is an environment with neither XDG_STATE_HOME nor HOME set
// to an absolute path: there is nowhere to keep progress.
type NoHomeError struct{}

func (e *NoHomeError) Error() string {
	return "no place for the progress file: neither XDG_STATE_HOME nor HOME is set to an absolute path"
}
