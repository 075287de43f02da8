package privdata

import "fmt"

// A hello may end with the sender's name (`rdmatour client --name`), so
// that a workshop's roster says who each row is. It follows the edits
// section, which is written (with a count of 0) whenever a name is:
//
//	0  len   u8  (bytes of the name that follow; 0 = no name)
//	1  name  len bytes, as the sender typed them
//
// A reader that knows only the edits section stops after it; zero
// padding reads as no name. The name is the peer's bytes: shown only
// through PeerBytes.

// MaxHelloName is the longest name a hello carries: a roster cell, and
// what a REQ leaves after the longest lesson name and its edits header.
const MaxHelloName = 24

// AppendHelloName appends the name section to hello (a marshalled hello,
// with or without its edits section) when name is not empty and it fits
// in room bytes in all; otherwise hello comes back as it was. A name
// longer than MaxHelloName is cut there.
func AppendHelloName(hello []byte, name string, room int) []byte {
	h, found, err := ParseHello(hello)
	if name == "" || !found || err != nil {
		return hello
	}
	if len(name) > MaxHelloName {
		name = name[:MaxHelloName]
	}
	out := append([]byte(nil), hello...)
	if len(out) == helloHeaderLen+len(h.Lesson) {
		out = append(out, 0, 0) // an empty edits section: the name follows it
	}
	if len(out)+1+len(name) > room {
		return hello
	}
	out = append(out, byte(len(name)))
	return append(out, name...)
}

// NameRoom is how many bytes the edits may take of room when name is to
// follow them: room less the name's section.
func NameRoom(room int, name string) int {
	if name == "" {
		return room
	}
	return room - 1 - min(len(name), MaxHelloName)
}

// ParseHelloName reads the name at the end of the hello at the start of
// p: "" for no hello, no name, or zero padding. A name section that
// claims more bytes than p holds is a *HelloError.
func ParseHelloName(p []byte) (PeerBytes, error) {
	h, found, err := ParseHello(p)
	if !found || err != nil || h.Version < 2 {
		return nil, err
	}
	rest := p[helloHeaderLen+len(h.Lesson):]
	if len(rest) < helloEditsHeader {
		return nil, nil
	}
	count := int(rest[0])
	rest = rest[helloEditsHeader:]
	for i := 0; i < count; i++ {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return nil, &HelloError{fmt.Sprintf("edit %d of %d runs past the private data", i+1, count)}
		}
		rest = rest[1+int(rest[0]):]
	}
	if len(rest) == 0 || rest[0] == 0 {
		return nil, nil
	}
	n := int(rest[0])
	if n > MaxHelloName || 1+n > len(rest) {
		return nil, &HelloError{fmt.Sprintf("name of %d bytes in %d bytes left of the private data", n, len(rest)-1)}
	}
	return PeerBytes(append([]byte(nil), rest[1:1+n]...)), nil
}
