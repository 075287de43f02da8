package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// outFile is one file the tour writes as it runs (--record, --pcap). The
// tour never waits for it: writes are queued and a goroutine of its own
// puts them in the file, so a FIFO whose reader stops reading, or a slow
// disk, cannot stop a step or Ctrl-C (a first version wrote in the step's
// goroutine and froze at step 18 once a FIFO's 64 KiB buffer was full).
// What cannot be written in time is dropped and reported at the end.
type outFile struct {
	flag, path string
	f          *os.File

	mu      sync.Mutex
	cond    *sync.Cond
	q       [][]byte
	queued  int // bytes in q
	closing bool
	err     error // the first write error, or the overflow
	done    chan struct{}
}

// maxQueued bounds what waits for a slow reader: a whole recorded tour
// is a few hundred KiB, so only a reader that has stopped fills it.
const maxQueued = 16 << 20

// closeWait bounds how long the end of the tour waits for the queue to
// reach the file.
const closeWait = 2 * time.Second

// openOut opens path for flag. It refuses what cannot be written before
// anything runs: a directory, a missing folder, no permission, and a FIFO
// no process reads (opening one for writing would otherwise block until a
// reader comes, and Ctrl-C could not end the wait).
func openOut(flag, path string) (*outFile, error) {
	if st, err := os.Stat(path); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if errors.Is(err, syscall.ENXIO) {
			return nil, usagef("%s %s: a FIFO that no process reads yet; start its reader first (e.g. cat %s > copy)", flag, path, path)
		}
		if err != nil {
			return nil, usagef("%s %s: %v", flag, path, err)
		}
		return newOutFile(flag, path, f), nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, usagef("%s %s: %v", flag, path, err)
	}
	return newOutFile(flag, path, f), nil
}

func newOutFile(flag, path string, f *os.File) *outFile {
	o := &outFile{flag: flag, path: path, f: f, done: make(chan struct{})}
	o.cond = sync.NewCond(&o.mu)
	go o.writeLoop()
	return o
}

// Write queues a copy of p and never blocks. Past maxQueued the rest of
// the output is dropped, and Close reports it.
func (o *outFile) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return len(p), nil // reported once, at Close
	}
	if o.queued+len(p) > maxQueued {
		o.err = fmt.Errorf("its reader does not keep up: %d MiB waited, the rest was dropped", maxQueued>>20)
		o.q, o.queued = nil, 0
		return len(p), nil
	}
	o.q = append(o.q, append([]byte(nil), p...))
	o.queued += len(p)
	o.cond.Signal()
	return len(p), nil
}

func (o *outFile) writeLoop() {
	defer close(o.done)
	for {
		o.mu.Lock()
		for len(o.q) == 0 && !o.closing {
			o.cond.Wait()
		}
		if len(o.q) == 0 {
			o.mu.Unlock()
			return
		}
		chunk := o.q[0]
		o.q = o.q[1:]
		o.queued -= len(chunk)
		o.mu.Unlock()
		if _, err := o.f.Write(chunk); err != nil {
			o.mu.Lock()
			if o.err == nil {
				o.err = err
			}
			o.q, o.queued = nil, 0
			o.mu.Unlock()
		}
	}
}

// Err is the first write error so far (a full device fails the header,
// which is written before the first step: the caller asks then).
func (o *outFile) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// settle waits, at most d, until what is queued now is written, so that
// a header's error is known before the tour starts.
func (o *outFile) settle(d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		o.mu.Lock()
		idle, err := len(o.q) == 0, o.err
		o.mu.Unlock()
		if err != nil || idle || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

// Close writes what is queued (waiting at most closeWait), closes the
// file and reports what went wrong, naming the flag and the path.
func (o *outFile) Close() error {
	o.mu.Lock()
	o.closing = true
	o.cond.Signal()
	o.mu.Unlock()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-o.done:
	case <-t.C:
		o.f.Close() // unblocks a write stuck on a reader that stopped
		return o.problem(fmt.Errorf("could not finish writing within %v: its reader stopped reading", closeWait))
	}
	err := o.Err()
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return o.problem(err)
	}
	return nil
}

// problem says which output failed, and that the tour itself ran.
func (o *outFile) problem(err error) error {
	return &steps.Problem{Err: err,
		What: text.Text{EN: fmt.Sprintf("%s %s: %v", o.flag, o.path, err), ZH: fmt.Sprintf("%s %s：%v", o.flag, o.path, err)},
		Fix: text.Text{EN: "the tour itself ran; the file is incomplete. Write to a regular file, or keep the FIFO's reader reading until rdmatour exits",
			ZH: "教程本身已经跑完，但这个文件不完整。请写到普通文件，或者让 FIFO 的读者一直读到 rdmatour 退出"}}
}

// distinctOutputs refuses two outputs that name one file: both writers
// would overwrite each other, and neither file would be usable.
func distinctOutputs(outs map[string]string) error {
	seen := map[string]string{}
	for flag, path := range outs {
		if path == "" {
			continue
		}
		key, err := filepath.Abs(path)
		if err != nil {
			key = path
		}
		if resolved, err := filepath.EvalSymlinks(key); err == nil {
			key = resolved
		}
		if other, ok := seen[key]; ok {
			a, b := other, flag
			if b < a {
				a, b = b, a
			}
			return usagef("%s and %s both name %s: give each its own file", a, b, path)
		}
		seen[key] = flag
	}
	return nil
}
