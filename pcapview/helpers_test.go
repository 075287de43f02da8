package pcapview

import (
	"bytes"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/rdmatour/rdmatour/wire"
)

func wireSequences(tour string) []wire.TourVariant { return wire.TourSequences(tour) }

// framesOf reads a kept pcap's frames.
func framesOf(t testing.TB, b []byte) [][]byte {
	t.Helper()
	frames, err := wire.ReadPcap(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return frames
}

// pcapOf writes frames as a pcap file, a millisecond apart.
func pcapOf(t testing.TB, lt layers.LinkType, frames ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(65535, lt); err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1700000000, 0)
	for i, f := range frames {
		ci := gopacket.CaptureInfo{Timestamp: at.Add(time.Duration(i) * time.Millisecond), CaptureLength: len(f), Length: len(f)}
		if err := w.WritePacket(ci, f); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// pcapngOf writes frames as a pcapng file (one Ethernet interface), as
// tshark -F pcapng or editcap would.
func pcapngOf(t testing.TB, frames ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriter(&buf, layers.LinkTypeEthernet)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1700000000, 0)
	for i, f := range frames {
		ci := gopacket.CaptureInfo{Timestamp: at.Add(time.Duration(i) * time.Millisecond), CaptureLength: len(f), Length: len(f)}
		if err := w.WritePacket(ci, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serialize builds a frame from layers, lengths and checksums computed.
func serialize(t testing.TB, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// layersPayload is application bytes after the last header.
func layersPayload(s string) gopacket.SerializableLayer { return gopacket.Payload([]byte(s)) }

// cutBySnapLength is a pcap holding frame captured to its first n bytes,
// as tcpdump -s n writes it.
func cutBySnapLength(t testing.TB, frame []byte, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(uint32(n), layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	ci := gopacket.CaptureInfo{Timestamp: time.Unix(1700000000, 0), CaptureLength: n, Length: len(frame)}
	if err := w.WritePacket(ci, frame[:n]); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
