package privdata

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
)

// The hello is how two rdmatour sides agree on what they run: the client
// puts it in the connect (REQ) private data, the server puts it in the
// accept (REP) private data right after the 32-byte remote_info.
//
// The seed C programs never see it as anything but padding: the seed's
// server does not read the REQ private data, and the seed's client reads
// only the first 32 bytes of the REP private data. Over IB/RoCE all
// private data arrives zero-padded (56 bytes REQ, 196 REP), so an absent
// hello reads as zeros; the magic tells a hello from that padding.
//
// Layout (version 1), at most MaxHelloSize bytes so it fits the 56 bytes
// rdma_cm leaves in a REQ (92 bytes minus its own 36-byte header):
//
//	0  magic "rdmT" (4 bytes)
//	4  version  u8  (1)
//	5  tour     u8  (steps.TourKind: 0 write, 1 read, 2 atomic, 3 ud)
//	6  len      u8  (length of the lesson name; 0 = the plain tour)
//	7  lesson   len bytes, [a-z0-9-]
//
// A later version may only append fields: a reader of version 1 reads a
// newer hello's first fields and ignores the rest. Version 2 appends the
// sender's edits when it has any (helloedits.go).
const (
	helloMagic = "rdmT"
	// HelloVersion is the format version this rdmatour writes (2: the
	// edits section may follow the lesson name).
	HelloVersion   = 2
	helloHeaderLen = 7
	// MaxHelloSize is the largest hello: it fits a REQ's private data.
	MaxHelloSize = verbs.MaxConnectPrivateData
	// MaxHelloLesson is the longest lesson name a hello carries.
	MaxHelloLesson = MaxHelloSize - helloHeaderLen
)

// Hello is the hello as it crosses: what one side tells the other about
// the tour it runs. Tour is the wire byte; steps.ParseHello gives it its
// meaning and turns away the kinds this rdmatour does not know.
type Hello struct {
	// Version is the sender's format version (HelloVersion when sending).
	Version uint8
	// Tour is the sender's tour kind as its wire byte (0 = write).
	Tour uint8
	// Lesson is the lesson's name; "" is the plain tour.
	Lesson string
}

// HelloError is a hello that carries the magic but cannot be read.
type HelloError struct{ Reason string }

func (e *HelloError) Error() string { return "peer's hello: " + e.Reason }

// ErrLessonTooLong is a lesson name longer than MaxHelloLesson: Marshal
// refuses it.
var ErrLessonTooLong = errors.New("lesson name too long for a hello")

// Marshal encodes the hello. It fails only for a lesson name that is too
// long or not [a-z0-9-], which the lesson list never has.
func (h Hello) Marshal() ([]byte, error) {
	if len(h.Lesson) > MaxHelloLesson {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrLessonTooLong, len(h.Lesson), MaxHelloLesson)
	}
	if !validLessonName(h.Lesson) {
		return nil, fmt.Errorf("lesson name %q: only a-z, 0-9 and - fit in a hello", h.Lesson)
	}
	b := make([]byte, 0, helloHeaderLen+len(h.Lesson))
	b = append(b, helloMagic...)
	b = append(b, h.Version, h.Tour, byte(len(h.Lesson)))
	return append(b, h.Lesson...), nil
}

// ParseHello reads a hello from the start of p. found is false when p
// holds no hello (empty, or zero padding from a seed peer): that is not an
// error. A hello with the magic but a broken body is a *HelloError. The
// tour byte is not checked here: that is steps.ParseHello's job.
func ParseHello(p []byte) (h Hello, found bool, err error) {
	if len(p) < len(helloMagic) || !bytes.Equal(p[:len(helloMagic)], []byte(helloMagic)) {
		return Hello{}, false, nil
	}
	if len(p) < helloHeaderLen {
		return Hello{}, true, &HelloError{fmt.Sprintf("%d bytes, the header alone is %d", len(p), helloHeaderLen)}
	}
	h = Hello{Version: p[4], Tour: p[5]}
	if h.Version == 0 {
		return Hello{}, true, &HelloError{"version 0"}
	}
	n := int(p[6])
	if n > MaxHelloLesson || helloHeaderLen+n > len(p) {
		return Hello{}, true, &HelloError{fmt.Sprintf("lesson name of %d bytes in %d bytes of private data", n, len(p))}
	}
	name := string(p[helloHeaderLen : helloHeaderLen+n])
	if !validLessonName(name) {
		return Hello{}, true, &HelloError{fmt.Sprintf("lesson name %s is not [a-z0-9-]", PeerBytes([]byte(name)))}
	}
	h.Lesson = name
	return h, true, nil
}

// ParseAcceptHello reads the hello that follows remote_info in the accept
// private data.
func ParseAcceptHello(p []byte) (Hello, bool, error) {
	if len(p) <= RemoteInfoSize {
		return Hello{}, false, nil
	}
	return ParseHello(p[RemoteInfoSize:])
}

func validLessonName(s string) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '-') {
			return false
		}
	}
	return true
}
