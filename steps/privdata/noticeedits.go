package privdata

import "bytes"

// Edits the client makes after its hello left (in the TUI's form, on a
// step after rdma_connect) ride in the SEND that tells the server the
// WRITE is done, after "RDMA_WRITE_DONE" and its NUL:
//
//	"EDITS"  the marker, 5 bytes
//	then the hello's edits section (count, omitted, each edit: len, bytes)
//
// The server's RECV buffer is 128 bytes and the notice takes 16, so there
// is room; the seed's server prints the buffer as a C string and never
// looks past the NUL, and a SEND without the marker (the seed's client,
// an rdmatour without late edits) carries none.

const noticeEditsMarker = "EDITS"

// AppendNoticeEdits appends the marker and as many of edits as fit in
// room bytes in all to notice (the SEND's text with its NUL). With no
// edits, or no room for the marker and header, notice comes back as it
// was.
func AppendNoticeEdits(notice []byte, edits []string, room int) []byte {
	if len(edits) == 0 || len(notice)+len(noticeEditsMarker)+helloEditsHeader > room {
		return notice
	}
	out := append(append([]byte(nil), notice...), noticeEditsMarker...)
	return appendEditsSection(out, edits, room)
}

// ParseNoticeEdits reads the edits after the first NUL of buf (the
// server's RECV buffer). No NUL, no marker: none, no error. A section
// that claims more bytes than buf holds is a *HelloError.
func ParseNoticeEdits(buf []byte) (HelloEdits, error) {
	i := bytes.IndexByte(buf, 0)
	if i < 0 {
		return HelloEdits{}, nil
	}
	rest, ok := bytes.CutPrefix(buf[i+1:], []byte(noticeEditsMarker))
	if !ok || len(rest) < helloEditsHeader {
		return HelloEdits{}, nil
	}
	return parseEditsSection(rest)
}
