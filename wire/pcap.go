package wire

import (
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// PcapWriter writes Ethernet frames as a pcap file Wireshark and tshark
// open. It is not safe for concurrent use.
type PcapWriter struct {
	w *pcapgo.Writer
}

// snapLen is large enough for any RoCE frame (4096-byte MTU and headers).
const snapLen = 65535

// NewPcapWriter writes the pcap file header to w.
func NewPcapWriter(w io.Writer) (*PcapWriter, error) {
	pw := pcapgo.NewWriterNanos(w)
	if err := pw.WriteFileHeader(snapLen, layers.LinkTypeEthernet); err != nil {
		return nil, fmt.Errorf("wire: pcap header: %w", err)
	}
	return &PcapWriter{w: pw}, nil
}

// WriteFrame appends one frame captured (or synthesized) at t.
func (p *PcapWriter) WriteFrame(t time.Time, frame []byte) error {
	ci := gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(frame), Length: len(frame)}
	if err := p.w.WritePacket(ci, frame); err != nil {
		return fmt.Errorf("wire: pcap packet: %w", err)
	}
	return nil
}

// ReadPcap reads every frame of a pcap file with Ethernet link type.
func ReadPcap(r io.Reader) ([][]byte, error) {
	pr, err := pcapgo.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	if pr.LinkType() != layers.LinkTypeEthernet {
		return nil, fmt.Errorf("wire: pcap link type %v, want Ethernet", pr.LinkType())
	}
	var frames [][]byte
	for {
		data, _, err := pr.ReadPacketData()
		if err == io.EOF {
			return frames, nil
		}
		if err != nil {
			return frames, fmt.Errorf("wire: pcap frame %d: %w", len(frames)+1, err)
		}
		frames = append(frames, data)
	}
}
