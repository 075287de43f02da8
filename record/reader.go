package record

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"

	"github.com/rdmatour/rdmatour/steps"
)

// LineError is the first problem found in a recording: the file, the
// line (1-based) and what is wrong, in words a presenter can act on.
type LineError struct {
	File   string
	Line   int
	Reason string
}

func (e *LineError) Error() string {
	return fmt.Sprintf("%s line %d: %s", e.File, e.Line, e.Reason)
}

// maxLine bounds one line: a step line is a few KiB; a corrupt file
// without newlines must not be read into memory whole.
const maxLine = 16 << 20

// maxFile bounds the whole file, and with it what the replay keeps in
// memory (about twice the file): a recording of any tour is well under
// 1 MiB, and 256 steps of lines just under maxLine would be gigabytes.
const maxFile = 32 << 20

// maxTour bounds the steps of one side (the tours have about 20): it
// bounds what a file can make the replay keep.
const maxTour = 256

// ReadFile decodes the recording at path.
func ReadFile(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode reads a recording; name labels errors. It checks that every side
// replays on this rdmatour's tour (NewPlayer) before returning.
func Decode(r io.Reader, name string) (*Recording, error) {
	return decodeWithin(r, name, maxLine, maxFile)
}

// decodeWithin is Decode with the line and file bounds given (the tests
// check the bounds with small ones: 32 MiB of JSON is slow to make).
func decodeWithin(r io.Reader, name string, lineLimit, fileLimit int) (*Recording, error) {
	d := &decoder{name: name, in: bufio.NewReader(r), lineLimit: lineLimit, fileLimit: fileLimit}
	if err := d.header(); err != nil {
		return nil, err
	}
	for {
		line, err := d.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := d.body(line); err != nil {
			return nil, d.fail("%v", err)
		}
	}
	return d.finish()
}

// decoder holds what has been read so far.
type decoder struct {
	name string
	in   *bufio.Reader
	// lineLimit and fileLimit are maxLine and maxFile, but in tests.
	lineLimit, fileLimit int
	line                 int
	read                 int // bytes read so far
	head                 Header
	sides                []*sideReader
}

// sideReader is one side being decoded.
type sideReader struct {
	head     SideHeader
	replay   Replay
	lines    []int // the line of each step
	timeline []steps.TimelineEntry
	packets  []steps.WirePacket
	lastData steps.BufferState // the previous snapshot's data buffer
	ended    bool
	endLine  int // the line of the end line
}

func (d *decoder) fail(format string, args ...any) error {
	return &LineError{File: d.name, Line: d.line, Reason: fmt.Sprintf(format, args...)}
}

// next returns the next line without its newline, or io.EOF.
func (d *decoder) next() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := d.in.ReadSlice('\n')
		buf = append(buf, chunk...)
		if d.read += len(chunk); d.read > d.fileLimit {
			d.line++
			return nil, d.fail("the file is longer than %s (a recording is well under 1 MiB): this is not an rdmatour recording", size(d.fileLimit))
		}
		if len(buf) > d.lineLimit {
			d.line++
			return nil, d.fail("the line is longer than %s: this is not an rdmatour recording", size(d.lineLimit))
		}
		switch {
		case err == nil:
			d.line++
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(buf) == 0:
			return nil, io.EOF
		case err == io.EOF:
			d.line++
			return nil, d.fail("the line is cut off (the file does not end with a newline): the recording was truncated")
		default:
			return nil, err
		}
	}
}

// header reads and checks the first line.
func (d *decoder) header() error {
	line, err := d.next()
	if err == io.EOF {
		d.line = 1
		return d.fail("the file is empty: not an rdmatour recording")
	}
	if err != nil {
		return err
	}
	var probe struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if json.Unmarshal(line, &probe) != nil || probe.Format != Format {
		return d.fail("not an rdmatour recording (the first line should be a JSON header with \"format\":%q)", Format)
	}
	if probe.Version < OldestVersion || probe.Version > Version {
		return d.fail("format version %d; this rdmatour reads versions %d to %d: replay it with the rdmatour that recorded it", probe.Version, OldestVersion, Version)
	}
	if err := json.Unmarshal(line, &d.head); err != nil {
		return d.fail("the header is damaged: %v", err)
	}
	if err := checkText(line); err != nil {
		return d.fail("%v", err)
	}
	return d.checkHeader()
}

// checkHeader checks the sides: one, or a server and a client.
func (d *decoder) checkHeader() error {
	h := d.head
	switch {
	case len(h.Sides) == 1:
	case len(h.Sides) == 2 && h.Sides[0].Role == "server" && h.Sides[1].Role == "client":
	default:
		return d.fail("the header must describe one side, or the server then the client (found %d sides)", len(h.Sides))
	}
	for _, sh := range h.Sides {
		cfg, err := sideConfig(sh)
		if err != nil {
			return d.fail("%s side: %v", sh.Role, err)
		}
		initial, err := sh.Initial.decode()
		if err != nil {
			return d.fail("%s side: %v", sh.Role, err)
		}
		if len(sh.Tour) == 0 || len(sh.Tour) > maxTour {
			return d.fail("%s side: the header lists %d steps (a tour has 1 to %d)", sh.Role, len(sh.Tour), maxTour)
		}
		d.sides = append(d.sides, &sideReader{head: sh, replay: Replay{Config: cfg, Initial: initial, Tour: decodeTour(sh.Tour)}})
	}
	return nil
}

// sideConfig is the steps.Config a side header describes.
func sideConfig(sh SideHeader) (steps.Config, error) {
	var cfg steps.Config
	var err error
	if cfg.Role, err = steps.ParseRole(sh.Role); err != nil {
		return cfg, err
	}
	if cfg.Notify, err = steps.ParseNotify(sh.Notify); err != nil {
		return cfg, err
	}
	if cfg.Track, err = steps.ParseTrack(sh.Track); err != nil {
		return cfg, err
	}
	cfg.Message = sh.Message
	if sh.MessageBytes != nil {
		cfg.Message = string(sh.MessageBytes)
	}
	if sh.Lesson != "" { // the recording's edge: resolved once, here
		if cfg.Lesson, err = steps.ParseLesson(sh.Lesson); err != nil {
			return cfg, err
		}
	}
	if len(sh.Edits) > 0 { // parsed as --edit is: a bad one refuses the file
		if cfg.Edits, err = steps.ParseEdits(sh.Edits); err != nil {
			return cfg, err
		}
	}
	if sh.Bind != "" {
		if cfg.Bind, err = netip.ParseAddrPort(sh.Bind); err != nil {
			return cfg, fmt.Errorf("bind address: %w", err)
		}
	}
	if sh.Server != "" {
		if cfg.Server, err = netip.ParseAddrPort(sh.Server); err != nil {
			return cfg, fmt.Errorf("server address: %w", err)
		}
	}
	return cfg, cfg.Validate()
}

// size is n bytes in MiB, or KiB below one MiB.
func size(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
