package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rdmatour/rdmatour/text"
)

// saveSettle is how long watch waits after a write before it checks: an
// editor's save is often several writes and a rename.
const saveSettle = 300 * time.Millisecond

// watch checks the program now and again after every save, until
// Ctrl-C. It watches the directory, not the file: editors that save by
// renaming a new file over the old one replace the file watched.
func (r exerciseRun) watch(ctx context.Context) int {
	w, err := fsnotify.NewWatcher()
	if err == nil {
		err = w.Add(r.dir)
	}
	if err != nil {
		fmt.Fprintf(r.c.stderr, "rdmatour exercise: watching %s: %v\n", r.dir, err)
		return 1
	}
	defer w.Close()
	src := filepath.Join(r.dir, r.ex.FileName())
	r.checkOnce(ctx)
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return 0
		case err := <-w.Errors:
			fmt.Fprintf(r.c.stderr, "rdmatour exercise: watching %s: %v\n", r.dir, err)
		case ev := <-w.Events:
			if filepath.Clean(ev.Name) == filepath.Clean(src) && ev.Has(fsnotify.Write|fsnotify.Create|fsnotify.Rename) {
				settle = time.After(saveSettle)
			}
		case <-settle:
			settle = nil
			r.checkOnce(ctx)
		}
	}
}

// checkOnce is one check of watch, under a line that says when.
func (r exerciseRun) checkOnce(ctx context.Context) {
	at := time.Now().Format("15:04:05")
	r.say(r.c.stdout, text.Text{EN: fmt.Sprintf("── %s check %s (Ctrl-C ends watch)", at, r.ex.Name),
		ZH: fmt.Sprintf("── %s 检查 %s（Ctrl-C 结束 watch）", at, r.ex.Name)})
	r.check(ctx)
}
