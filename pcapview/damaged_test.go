package pcapview

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/rdmatour/rdmatour/text"
)

// TestDamagedFiles: what is not a RoCEv2 capture is refused with what it
// is, and a file cut off says where.
func TestDamagedFiles(t *testing.T) {
	send := keptCaptures(t)["send"]
	frames := framesOf(t, send)
	third := 24 + 16 + len(frames[0]) + 16 + len(frames[1]) // where record 3 starts
	ng := pcapngOf(t, frames...)
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, SrcIP: net.IP{10, 0, 0, 1}, DstIP: net.IP{10, 0, 0, 2}, Protocol: layers.IPProtocolTCP}
	tcp := &layers.TCP{SrcPort: 40000, DstPort: 22}
	_ = tcp.SetNetworkLayerForChecksum(ip)
	ipUDP := *ip
	ipUDP.Protocol = layers.IPProtocolUDP
	dns := &layers.UDP{SrcPort: 40000, DstPort: 53}
	_ = dns.SetNetworkLayerForChecksum(&ipUDP)
	tcpFrame := serialize(t, eth, ip, tcp)
	dnsFrame := serialize(t, eth, &ipUDP, dns, layersPayload("q"))
	for _, tc := range []struct {
		name    string
		file    []byte
		problem Problem
		packets int      // packets still returned
		says    []string // in the English message
	}{
		{"empty", nil, NotCapture, 0, []string{"the file is empty"}},
		{"text", []byte("hello, not a capture\n"), NotCapture, 0, []string{"68 65 6c 6c 6f 2c 20 6e", "tcpdump -w"}},
		{"cut in the file header", send[:10], Truncated, 0, []string{"10 bytes", "24-byte file header"}},
		{"cut in the first record", send[:30], Truncated, 0, []string{"record 1 (it starts at byte 24)", "ends at byte 30"}},
		{"cut in the third record", send[:third+20], Truncated, 2, []string{fmt.Sprintf("record 3 (it starts at byte %d)", third), fmt.Sprintf("ends at byte %d", third+20), "The 2 packets before it"}},
		{"pcapng cut in its last block", ng[:len(ng)-10], Truncated, len(frames) - 1, []string{"the pcapng file is cut off inside record 9:", fmt.Sprintf("ends at byte %d", len(ng)-10)}},
		{"no RoCE", pcapOf(t, layers.LinkTypeEthernet, tcpFrame, tcpFrame, dnsFrame), NoRoCE, 0, []string{"none of the 3 frames", "2 TCP, 1 UDP port 53"}},
		{"no frames", pcapOf(t, layers.LinkTypeEthernet), NoRoCE, 0, []string{"none of the 0 frames", "no frames at all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Read(bytes.NewReader(tc.file))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Read: %v, want a *FileError", err)
			}
			if fe.Problem != tc.problem {
				t.Errorf("problem %d, want %d: %v", fe.Problem, tc.problem, err)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("message %q does not say %q", err, s)
				}
			}
			if zh := fe.Text().In(text.ZH); zh == fe.Text().EN || !hasHan(zh) {
				t.Errorf("no Chinese message: %q", zh)
			}
			if got := packetsIn(c); got != tc.packets {
				t.Errorf("%d packets returned, want %d", got, tc.packets)
			}
		})
	}
}

func hasHan(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}

func packetsIn(c *Capture) int {
	if c == nil {
		return 0
	}
	return len(c.Packets)
}
