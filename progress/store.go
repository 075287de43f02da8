package progress

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Store is the progress file in one directory.
type Store struct {
	Dir string
	// Now names a set-aside file; nil is time.Now.
	Now func() time.Time
}

// Path is the progress file's path.
func (s Store) Path() string { return filepath.Join(s.Dir, FileName) }

// SetAside says that a progress file could not be read and was moved
// out of the way: what was wrong, and where it is now.
type SetAside struct {
	Path, MovedTo string
	Why           string
}

// Message is the sentence that tells the learner, in English and Chinese.
func (a *SetAside) Message() (en, zh string) {
	en = fmt.Sprintf("rdmatour: the progress file %s %s; it was moved to %s and progress starts afresh", a.Path, a.Why, a.MovedTo)
	zh = fmt.Sprintf("rdmatour：进度文件 %s 无法读取（%s）；它已被移到 %s，进度从头记起", a.Path, a.Why, a.MovedTo)
	return en, zh
}

// Load reads the progress file. A missing file is empty progress; a file
// that cannot be read is set aside (the *SetAside says where) and empty
// progress returned. It takes the lock, so it never reads while another
// process is setting a file aside.
func (s Store) Load() (File, *SetAside, error) {
	var f File
	var aside *SetAside
	err := s.locked(func() error {
		var err error
		f, aside, err = s.read()
		return err
	})
	return f, aside, err
}

// Update applies change to the progress file under the lock and writes
// it back atomically. It returns a *SetAside when the old file could not
// be read (the change then applies to empty progress).
func (s Store) Update(change func(*File)) (*SetAside, error) {
	var aside *SetAside
	err := s.locked(func() error {
		f, a, err := s.read()
		if err != nil {
			return err
		}
		aside = a
		change(&f)
		return s.write(f)
	})
	return aside, err
}

// locked runs fn holding an exclusive flock on the lock file.
func (s Store) locked(fn func() error) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("making the progress directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(s.Dir, FileName+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("opening the progress lock: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("locking the progress file: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	return fn()
}

// read reads the file (the lock held), setting aside one it cannot use.
func (s Store) read() (File, *SetAside, error) {
	empty := File{Version: Version}
	data, err := os.ReadFile(s.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil, nil
	}
	if err != nil {
		return empty, nil, fmt.Errorf("reading the progress file: %w", err)
	}
	var f File
	why := ""
	if err := json.Unmarshal(data, &f); err != nil {
		why = "is not valid progress JSON (" + err.Error() + ")"
	} else if f.Version > Version {
		why = fmt.Sprintf("was written by a newer rdmatour (format %d; this one reads %d)", f.Version, Version)
	} else if f.Version < 1 {
		why = "has no format version"
	}
	if why == "" {
		return f, nil, nil
	}
	aside, err := s.setAside(why)
	return empty, aside, err
}

// setAside renames the unreadable file to a name nothing else uses.
func (s Store) setAside(why string) (*SetAside, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	to := fmt.Sprintf("%s.unreadable-%s", s.Path(), now().UTC().Format("20060102T150405.000000000"))
	if err := os.Rename(s.Path(), to); err != nil {
		return nil, fmt.Errorf("setting aside the unreadable progress file: %w", err)
	}
	return &SetAside{Path: s.Path(), MovedTo: to, Why: why}, nil
}

// write replaces the file with f through a temporary file and a rename.
func (s Store) write(f File) error {
	f.Version = Version
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.Dir, FileName+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing the progress file: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the progress file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the progress file: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path()); err != nil {
		return fmt.Errorf("writing the progress file: %w", err)
	}
	return nil
}
