package pcapview

import (
	"bytes"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/wire"
)

// printed is what Print writes for file in English, without the heading.
func printed(t *testing.T, file []byte) string {
	t.Helper()
	c, err := Read(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Print(&out, "f", c, text.EN); err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(out.String(), "\n")
	return body
}

// udpPayloads are the UDP 4791 payloads (the IB transport packets) of
// Ethernet/IPv4 frames without IP options.
func udpPayloads(frames [][]byte) [][]byte {
	out := make([][]byte, len(frames))
	for i, f := range frames {
		ipLen := int(f[16])<<8 | int(f[17])
		out[i] = f[14+20+8 : 14+ipLen]
	}
	return out
}

// TestOtherFormats: the same packets read the same from pcapng, from a
// raw-IP capture and over IPv6 (the addresses aside), as learners'
// tcpdump, tshark -F pcapng and IPv6 GIDs give them.
func TestOtherFormats(t *testing.T) {
	frames := framesOf(t, keptCaptures(t)["large-write"])
	want := printed(t, pcapOf(t, layers.LinkTypeEthernet, frames...))

	if got := printed(t, pcapngOf(t, frames...)); got != want {
		t.Errorf("pcapng:\n%s\nwant (pcap):\n%s", got, want)
	}
	raw := make([][]byte, len(frames))
	for i, f := range frames {
		raw[i] = f[14:] // no Ethernet header
	}
	if got := printed(t, pcapOf(t, layers.LinkTypeRaw, raw...)); got != want {
		t.Errorf("raw IP:\n%s\nwant (Ethernet):\n%s", got, want)
	}
	cooked := make([][]byte, len(frames))
	for i, f := range frames {
		// tcpdump -i any's Linux cooked header: packet type, ARPHRD_ETHER,
		// address length and address, then the EtherType.
		h := []byte{0, 0, 0, 1, 0, 6, f[6], f[7], f[8], f[9], f[10], f[11], 0, 0, 0x08, 0x00}
		cooked[i] = append(h, f[14:]...)
	}
	if got := printed(t, pcapOf(t, layers.LinkTypeLinuxSLL, cooked...)); got != want {
		t.Errorf("Linux cooked:\n%s\nwant (Ethernet):\n%s", got, want)
	}
	v6 := make([][]byte, len(frames))
	a, b := net.ParseIP("fd00::1"), net.ParseIP("fd00::2")
	for i, p := range udpPayloads(frames) {
		src, dst := a, b
		if frames[i][29] == 2 { // 10.0.3.2 sends: fd00::2 sends
			src, dst = b, a
		}
		ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolUDP, SrcIP: src, DstIP: dst}
		udp := &layers.UDP{SrcPort: 49152, DstPort: wire.RoCEv2Port}
		_ = udp.SetNetworkLayerForChecksum(ip)
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv6}
		v6[i] = serialize(t, eth, ip, udp, layersPayload(string(p)))
	}
	got := printed(t, pcapOf(t, layers.LinkTypeEthernet, v6...))
	got = strings.NewReplacer("fd00::1", "10.0.3.1", "fd00::2", "10.0.3.2").Replace(got)
	if got != want {
		t.Errorf("IPv6:\n%s\nwant (IPv4):\n%s", got, want)
	}
}

// TestEditcapPcapng: a pcapng file as Wireshark's editcap writes it
// reads as the pcap it came from.
func TestEditcapPcapng(t *testing.T) {
	editcap, err := exec.LookPath("editcap")
	if err != nil {
		t.Skip("editcap is not installed (Debian: wireshark-common); TestOtherFormats covers pcapng written in Go")
	}
	src := "../wire/testdata/rxe-two-hosts-read.pcap"
	dst := filepath.Join(t.TempDir(), "read.pcapng")
	if out, err := exec.Command(editcap, "-F", "pcapng", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("editcap: %v\n%s", err, out)
	}
	ng, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Read(bytes.NewReader(ng))
	if err != nil || c.Format != FormatPcapng {
		t.Fatalf("editcap's pcapng: %v, format %v", err, c)
	}
	if got, want := printed(t, ng), printed(t, keptCaptures(t)["read"]); got != want {
		t.Errorf("editcap's pcapng:\n%s\nwant (the pcap):\n%s", got, want)
	}
}

// bthAt is where the BTH starts in an Ethernet/IPv4/UDP frame.
const bthAt = 14 + 20 + 8

// withPSN is a copy of frame with its BTH PSN set.
func withPSN(frame []byte, psn uint32) []byte {
	f := append([]byte(nil), frame...)
	f[bthAt+9], f[bthAt+10], f[bthAt+11] = byte(psn>>16), byte(psn>>8), byte(psn)
	return f
}

// TestLossIsCalledOut: the middle packet of the kept 3-packet WRITE is
// dropped; the responder NAKs with a PSN sequence error; the requester
// goes back and sends MIDDLE and LAST again — the lost-write lesson's
// sequence. The gap, the NAK, the resend and the repeat are each named,
// and the tally counts them.
func TestLossIsCalledOut(t *testing.T) {
	f := framesOf(t, keptCaptures(t)["large-write"])
	first, middle, last, ack := f[3], f[4], f[5], f[6]
	psn := uint32(middle[bthAt+9])<<16 | uint32(middle[bthAt+10])<<8 | uint32(middle[bthAt+11])
	nak := withPSN(ack, psn)
	nak[bthAt+12] = uint8(wire.SyndromeNAKPSNSeqErr)
	file := pcapOf(t, layers.LinkTypeEthernet, f[0], f[1], f[2], first, last, nak, middle, last, ack)
	out := printed(t, file)
	for _, want := range []string{
		"#5 ", "gap: PSN 3994104 never appeared",
		"AETH NAK PSN sequence error", "the responder expected the PSN this NAK carries",
		"retransmission: PSN 3994104 comes after later PSNs",
		"retransmission: PSN 3994105 seen again",
		"retransmissions: 2, gaps: 1, NAKs: 1, duplicate ACKs: 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	c, _ := Read(bytes.NewReader(file))
	notes := Notes(c)
	if len(notes[4]) != 1 || notes[4][0].Kind != NoteGap {
		t.Errorf("the LAST after the lost MIDDLE: notes %+v, want one gap", notes[4])
	}
	if len(notes[3]) != 0 {
		t.Errorf("the FIRST: notes %+v, want none", notes[3])
	}
}

// TestDuplicateACKAndRNRRetry: an ACK repeated for the same PSN is a
// duplicate ACK; a SEND resent after an RNR NAK is a retransmission.
func TestDuplicateACKAndRNRRetry(t *testing.T) {
	f := framesOf(t, keptCaptures(t)["no-recv"])
	send, rnr := f[5], f[6]
	ack := append([]byte(nil), rnr...)
	ack[bthAt+12] = uint8(wire.SyndromeACK)
	out := printed(t, pcapOf(t, layers.LinkTypeEthernet, f[3], f[4], send, rnr, send, ack, ack))
	for _, want := range []string{"RNR NAK (receiver not ready), timer code 0", "waits 655.36 ms",
		"retransmission: PSN 1568761 again, after the RNR NAK's wait", "ACK for PSN 1568761 again",
		"retransmissions: 1, gaps: 0, NAKs: 1, duplicate ACKs: 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestREJAndSnapLength: a CM REJ names its reason; a frame the capture
// cut short says so.
func TestREJAndSnapLength(t *testing.T) {
	fr := wire.Frame{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2},
		Src: netip.MustParseAddr("10.0.3.1"), Dst: netip.MustParseAddr("10.0.3.2"), SrcPort: 49152,
		Packet: wire.CMPacket(&wire.REJ{LocalCommID: 1, RemoteCommID: 2, Reason: 28}, 7, 0)}
	rej, err := fr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out := printed(t, pcapOf(t, layers.LinkTypeEthernet, rej))
	for _, want := range []string{"CM REJ (MAD to QP1) reason=28 IB_CM_REJ_CONSUMER_DEFINED", "RDMA_CM_EVENT_REJECTED with status 28"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	c, err := Read(bytes.NewReader(cutBySnapLength(t, rej, 100)))
	if err != nil {
		t.Fatal(err)
	}
	notes := Notes(c)
	if len(notes) != 1 || len(notes[0]) == 0 || notes[0][0].Kind != NoteCut {
		t.Fatalf("a frame cut to 100 bytes: notes %+v, want the cut called out", notes)
	}
	if !strings.Contains(notes[0][0].Text.EN, "last 222 bytes") {
		t.Errorf("cut note %q, want the 222 bytes left out", notes[0][0].Text.EN)
	}
}

// TestMRAAndOtherMADs: an MRA is named and explained; a MAD of another
// class is named by its class.
func TestMRAAndOtherMADs(t *testing.T) {
	frame := func(class uint8, attr uint16) []byte {
		pk := wire.CMPacket(&wire.RTU{}, 9, 0)
		m := wire.MAD{BaseVersion: 1, MgmtClass: class, ClassVersion: wire.CMClassVer, Method: wire.MADMethodSend, TransactionID: 9, AttributeID: attr}
		pk.Payload = m.Marshal()
		fr := wire.Frame{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2},
			Src: netip.MustParseAddr("10.0.3.1"), Dst: netip.MustParseAddr("10.0.3.2"), SrcPort: 49152, Packet: pk}
		b, err := fr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	out := printed(t, pcapOf(t, layers.LinkTypeEthernet, frame(wire.MgmtClassCM, wire.AttrMRA), frame(0x03, 0x0035)))
	for _, want := range []string{"CM MRA (MAD to QP1)", "MRA (message receipt acknowledgement): the peer's CM got the message", "MAD class 0x03 (to QP1, not the CM)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestBadICRC: a frame whose bytes changed after rxe computed its ICRC
// is called out; the kept captures' frames are not.
func TestBadICRC(t *testing.T) {
	f := framesOf(t, keptCaptures(t)["send"])
	bad := append([]byte(nil), f[3]...)
	bad[len(bad)-5] ^= 0xff // a payload byte; the ICRC stays as rxe wrote it
	c, err := Read(bytes.NewReader(pcapOf(t, layers.LinkTypeEthernet, f[3], bad)))
	if err != nil {
		t.Fatal(err)
	}
	notes := Notes(c)
	if len(notes[0]) != 0 {
		t.Errorf("rxe's frame: notes %+v, want none", notes[0])
	}
	if len(notes[1]) == 0 || notes[1][0].Kind != NoteBadICRC {
		t.Errorf("the changed frame: notes %+v, want the ICRC called out", notes[1])
	}
}

// TestLostReadResponseIsCalledOut: the kept READ's first MIDDLE response
// is taken out, as the requester's capture in the lost-read-response
// lesson has it: the next response names the gap (no NAK follows it),
// and the responses asked for again are retransmissions.
func TestLostReadResponseIsCalledOut(t *testing.T) {
	f := framesOf(t, keptCaptures(t)["read"])
	req, first, mid1, mid2, last := f[3], f[4], f[5], f[6], f[7]
	out := printed(t, pcapOf(t, layers.LinkTypeEthernet, f[0], f[1], f[2], req, first, mid2, last, mid1, mid2, last))
	for _, want := range []string{
		"gap: response PSN 10319563 never appeared", "nothing NAKs a lost response",
		"retransmission: response PSN 10319564 seen again", "retransmission: response PSN 10319565 seen again",
		"retransmissions: 2, gaps: 1, NAKs: 0, duplicate ACKs: 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Nothing lost: no note at all.
	if out := printed(t, pcapOf(t, layers.LinkTypeEthernet, req, first, mid1, mid2, last)); !strings.Contains(out, "retransmissions: 0, gaps: 0") {
		t.Errorf("a whole READ was called out:\n%s", out)
	}
}

// A READ_RESPONSE_ONLY is a response, like FIRST, MIDDLE and LAST.
func TestReadResponseOnlyIsAResponse(t *testing.T) {
	for _, op := range []wire.Opcode{wire.RCReadResponseFirst, wire.RCReadResponseMiddle, wire.RCReadResponseLast, wire.RCReadResponseOnly, wire.RCAtomicAcknowledge} {
		if classOf(op) != classResponse {
			t.Errorf("%v is not a response", op)
		}
	}
}
