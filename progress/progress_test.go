package progress_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/progress"
)

func TestRoundTrip(t *testing.T) {
	s := progress.Store{Dir: t.TempDir()}
	aside, err := s.Update(func(f *progress.File) {
		f.SetExercise("bad-rkey", progress.ExerciseState{Started: true, Hints: 2, Passed: true})
		f.CompleteLesson("no-recv")
		f.CompleteLesson("no-recv")
		f.CompleteTour("write")
		f.Predicted("bad-rkey", false, time.Unix(1000, 0))
		f.Predicted("bad-rkey", true, time.Unix(2000, 0))
	})
	if err != nil || aside != nil {
		t.Fatalf("Update: %v, %v", aside, err)
	}
	got, aside, err := s.Load()
	if err != nil || aside != nil {
		t.Fatalf("Load: %v, %v", aside, err)
	}
	want := progress.File{Version: progress.Version,
		Exercises:   map[string]progress.ExerciseState{"bad-rkey": {Started: true, Hints: 2, Passed: true}},
		Lessons:     []string{"no-recv"},
		Tours:       []string{"write"},
		Predictions: map[string]progress.Tally{"bad-rkey": {Right: 1, Wrong: 1, Last: time.Unix(2000, 0).UTC()}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got  %+v\n want %+v", got, want)
	}
}

// TestUnreadableFilesAreSetAside: a corrupt file, a future version and a
// file without a version are moved aside with a message, and the next
// write starts from empty progress without touching the moved file.
func TestUnreadableFilesAreSetAside(t *testing.T) {
	for _, tt := range []struct{ name, content, why string }{
		{"corrupt", `{"version": 1, "exercises": {`, "is not valid progress JSON"},
		{"future", `{"version": 99, "tours": ["write"]}`, "newer rdmatour (format 99"},
		{"no version", `{"tours": ["write"]}`, "has no format version"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := progress.Store{Dir: t.TempDir()}
			if err := os.WriteFile(s.Path(), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			aside, err := s.Update(func(f *progress.File) { f.CompleteTour("read") })
			if err != nil || aside == nil {
				t.Fatalf("Update: aside %v, err %v; want the file set aside", aside, err)
			}
			en, zh := aside.Message()
			if !strings.Contains(en, tt.why) || !strings.Contains(en, aside.MovedTo) || !strings.Contains(zh, aside.MovedTo) {
				t.Errorf("message %q / %q lacks %q or where the file went", en, zh, tt.why)
			}
			kept, err := os.ReadFile(aside.MovedTo)
			if err != nil || string(kept) != tt.content {
				t.Errorf("the set-aside file holds %q (%v), want the old content", kept, err)
			}
			f, again, err := s.Load()
			if err != nil || again != nil || !reflect.DeepEqual(f.Tours, []string{"read"}) {
				t.Errorf("after setting aside: %+v, %v, %v; want just the new tour", f, again, err)
			}
		})
	}
}

// TestConcurrentWriters: many writers at once (goroutines here; the lock
// is a flock, which separate processes share the same way) lose no
// change and leave no temporary file.
func TestConcurrentWriters(t *testing.T) {
	s := progress.Store{Dir: t.TempDir()}
	const writers = 20
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Update(func(f *progress.File) { f.Predicted("bad-rkey", i%2 == 0, time.Now()) }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f, _, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Predictions["bad-rkey"]; got.Right+got.Wrong != writers {
		t.Errorf("after %d writers: %+v", writers, got)
	}
	left, _ := filepath.Glob(filepath.Join(s.Dir, "*.tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestDefaultDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/a"}, "/x/state/rdmatour"},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/a"}, "/home/a/.local/state/rdmatour"},
		{map[string]string{"HOME": "/home/a"}, "/home/a/.local/state/rdmatour"},
	} {
		if got, err := progress.DefaultDir(env(tt.env)); err != nil || got != tt.want {
			t.Errorf("DefaultDir(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
	var none *progress.NoHomeError
	if _, err := progress.DefaultDir(env(nil)); !errors.As(err, &none) {
		t.Errorf("DefaultDir with no environment: %v; want a NoHomeError", err)
	}
}

// TestConcurrentProcesses: separate processes (this test binary, run
// again as TestWriterProcess) updating one file lose no change.
func TestConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	const procs, each = 6, 10
	var cmds []*exec.Cmd
	for range procs {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PROGRESS_WRITER_DIR="+dir, fmt.Sprintf("PROGRESS_WRITES=%d", each))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("a writer process: %v", err)
		}
	}
	f, aside, err := progress.Store{Dir: dir}.Load()
	if err != nil || aside != nil {
		t.Fatalf("Load: %v, %v", aside, err)
	}
	if got := f.Predictions["no-recv"].Right; got != procs*each {
		t.Errorf("%d processes × %d updates left %d", procs, each, got)
	}
}

// TestWriterProcess is one writer of TestConcurrentProcesses.
func TestWriterProcess(t *testing.T) {
	dir := os.Getenv("PROGRESS_WRITER_DIR")
	if dir == "" {
		t.Skip("run by TestConcurrentProcesses")
	}
	n, _ := strconv.Atoi(os.Getenv("PROGRESS_WRITES"))
	for range n {
		if _, err := (progress.Store{Dir: dir}).Update(func(f *progress.File) { f.Predicted("no-recv", true, time.Now()) }); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReviewPicks: the lessons whose last prediction was wrong come
// first, oldest first; then those predicted longest ago; at most n.
func TestReviewPicks(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 11, d, 12, 0, 0, 0, time.UTC) }
	var f progress.File
	f.Predicted("no-recv", true, day(1))        // right, oldest
	f.Predicted("bad-rkey", false, day(5))      // wrong, recent
	f.Predicted("htonl-address", false, day(3)) // wrong, older
	f.Predicted("post-before-connect", true, day(2))
	f.Predicted("htonl-address", true, day(4)) // now right: no longer wrong
	for _, tt := range []struct {
		n    int
		want []string
	}{
		{2, []string{"bad-rkey", "no-recv"}},
		{4, []string{"bad-rkey", "no-recv", "post-before-connect", "htonl-address"}},
		{9, []string{"bad-rkey", "no-recv", "post-before-connect", "htonl-address"}},
		{0, []string{}},
	} {
		if got := f.ReviewPicks(tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ReviewPicks(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
	if got := (progress.File{}).ReviewPicks(2); len(got) != 0 {
		t.Errorf("no predictions: %v", got)
	}
}
