// Package pcapview reads a RoCEv2 capture file — a learner's tcpdump
// between their own hosts (pcap or pcapng; Ethernet, Linux cooked or raw
// IP; IPv4 or IPv6) or rdmatour's own --pcap — and prints it the way the
// wire view does: one line per packet, CM messages named, QPs and PSNs,
// NAK syndromes named, retransmissions and gaps called out, and, given a
// tour, where the capture departs from the sequence that tour puts on
// the wire.
//
// It decodes with the wire package and speaks text.Text; it knows no
// session, no step and no front end.
package pcapview

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// MaxFileSize is the largest capture Read takes: it holds the file in
// memory, and a capture this size is far past what a reader reads line
// by line.
const MaxFileSize = 256 << 20

// Format is the capture file format.
type Format string

const (
	FormatPcap   Format = "pcap"
	FormatPcapng Format = "pcapng"
)

// Capture is a capture file, decoded.
type Capture struct {
	Format   Format
	LinkType layers.LinkType
	Frames   int      // every record in the file
	Packets  []Packet // the RoCEv2 ones (UDP 4791), in file order
	// Other counts the frames that were not RoCEv2, by what they were
	// ("TCP", "UDP port 53", "ARP", ...).
	Other map[string]int
	// IWARP is the iWARP connections' messages (iwarp.go), and
	// IWARPProblems what stopped their decoding.
	IWARP         []IWARPMessage
	IWARPProblems []string
	tcp           [][]byte // the Ethernet TCP frames, for iwarpOf
}

// frameSource is one reader over pcap or pcapng records.
type frameSource interface {
	ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// Read reads a whole capture. A file that is not a capture, is cut off,
// or holds no RoCEv2 packet is a *FileError; with a cut-off file the
// packets before the cut are returned too.
func Read(r io.Reader) (*Capture, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, &FileError{Problem: TooLarge, Size: int64(len(data))}
	}
	c, src, err := open(data)
	if err != nil {
		return nil, err
	}
	offset := int64(24) // the pcap file header; pcapng offsets are not tracked
	for {
		frame, ci, err := src.ReadPacketData()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c, cutOff(c, err, offset, int64(len(data)))
		}
		c.Frames++
		offset += 16 + int64(ci.CaptureLength)
		c.add(frame, ci, linkTypeOf(src, ci, c.LinkType))
	}
	c.IWARP, c.IWARPProblems = iwarpOf(c.tcp)
	c.tcp = nil
	if len(c.Packets) == 0 && len(c.IWARP) == 0 {
		return c, &FileError{Problem: NoRoCE, Frames: c.Frames, Other: c.Other, Format: c.Format}
	}
	return c, nil
}

// Magic numbers of the two formats (the first four bytes).
const (
	pcapngMagic   = 0x0A0D0D0A
	gzipMagic     = 0x1f8b
	pcapMicroLE   = 0xa1b2c3d4
	pcapNanoLE    = 0xa1b23c4d
	minPcapHeader = 24
)

// open checks the magic and opens the matching reader.
func open(data []byte) (*Capture, frameSource, error) {
	if len(data) < 4 {
		return nil, nil, &FileError{Problem: NotCapture, Size: int64(len(data)), Head: data}
	}
	c := &Capture{Other: map[string]int{}}
	le, be := binary.LittleEndian.Uint32(data), binary.BigEndian.Uint32(data)
	switch {
	case le == pcapngMagic:
		c.Format = FormatPcapng
		ng, err := pcapgo.NewNgReader(bytes.NewReader(data), pcapgo.NgReaderOptions{WantMixedLinkType: true, SkipUnknownVersion: true})
		if err != nil {
			return nil, nil, &FileError{Problem: Damaged, Format: c.Format, Detail: err.Error(), Size: int64(len(data))}
		}
		c.LinkType = ng.LinkType()
		return c, ng, nil
	case le == pcapMicroLE || be == pcapMicroLE || le == pcapNanoLE || be == pcapNanoLE || binary.BigEndian.Uint16(data) == gzipMagic:
		c.Format = FormatPcap
		if len(data) < minPcapHeader && binary.BigEndian.Uint16(data) != gzipMagic {
			return nil, nil, &FileError{Problem: Truncated, Format: c.Format, Offset: 0, Size: int64(len(data)), Detail: "the 24-byte file header"}
		}
		pr, err := pcapgo.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, nil, &FileError{Problem: Damaged, Format: c.Format, Detail: err.Error(), Size: int64(len(data))}
		}
		c.LinkType = pr.LinkType()
		return c, pr, nil
	}
	return nil, nil, &FileError{Problem: NotCapture, Size: int64(len(data)), Head: data[:min(len(data), 8)]}
}

// linkTypeOf is the link type of one record: pcapng gives it per
// interface (the reader puts it in AncillaryData), pcap once per file.
func linkTypeOf(src frameSource, ci gopacket.CaptureInfo, def layers.LinkType) layers.LinkType {
	if _, ng := src.(*pcapgo.NgReader); ng && len(ci.AncillaryData) > 0 {
		if lt, ok := ci.AncillaryData[0].(layers.LinkType); ok {
			return lt
		}
	}
	return def
}

// cutOff turns a reader's error after c.Frames records into the
// FileError that says where the file ends.
func cutOff(c *Capture, err error, offset, size int64) error {
	fe := &FileError{Problem: Damaged, Format: c.Format, Packet: c.Frames + 1, Offset: -1, Size: size, Detail: err.Error()}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		fe.Problem = Truncated
		fe.Detail = ""
	}
	if c.Format == FormatPcap {
		fe.Offset = offset
	}
	return fe
}
