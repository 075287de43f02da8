package wire

import (
	"os"
	"strings"
	"testing"
)

// siwMessages decodes a capture made on siw0, every direction: in one
// guest (tcpdump -i lo on port 7472, both sides on 10.0.2.15) or across
// two wired guests (tcpdump -i eth0 on port 7471, 10.0.3.2 to 10.0.3.1).
func siwMessages(t *testing.T, file string, port uint16) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	frames, err := ReadPcap(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range TCPStreams(frames, port) {
		msgs, rest, err := DecodeIWARPStream(s.Data)
		if err != nil || len(rest) != 0 || s.Gap {
			t.Fatalf("%s > %s: err %v, %d bytes left, gap %v", s.From, s.To, err, len(rest), s.Gap)
		}
		for _, m := range msgs {
			out = append(out, s.From.String()+" > "+s.To.String()+": "+m.Summary())
		}
	}
	return out
}

// The write tour with --notify doorbell and the read tour, captured on
// siw0 (probe in the guest, RDMATOUR_GUEST_SIW=only): the MPA frames
// carry rdmatour's hello (19 bytes) and remote_info plus hello (39); the
// Read Response is a tagged message into the sink's STag, which is why
// an iWARP READ sink is registered with REMOTE_WRITE.
func TestDecodeSiwCaptures(t *testing.T) {
	for _, tc := range []struct {
		file string
		port uint16
		want []string
	}{
		{"testdata/siw-write.pcap", 7472, []string{
			"10.0.2.15:47782 > 10.0.2.15:7472: MPA Request rev 2, 19 B private data",
			"10.0.2.15:47782 > 10.0.2.15:7472: RDMA Write STag 0x9f411200 TO 0x7fb280001000, 42 B, last",
			"10.0.2.15:47782 > 10.0.2.15:7472: RDMA Write STag 0x51b5cb00 TO 0x7fb280003000, 8 B, last",
			"10.0.2.15:7472 > 10.0.2.15:47782: MPA Reply rev 2, 39 B private data",
		}},
		{"testdata/siw-read.pcap", 7472, []string{
			"10.0.2.15:34411 > 10.0.2.15:7472: MPA Request rev 2, 19 B private data",
			"10.0.2.15:34411 > 10.0.2.15:7472: RDMA Read Request QN 1 MSN 1: 4096 B from STag 0x5161e300 TO 0x7f53a4001000 into STag 0x20ee1c00 TO 0x7ff3d0012000",
			"10.0.2.15:7472 > 10.0.2.15:34411: MPA Reply rev 2, 39 B private data",
			"10.0.2.15:7472 > 10.0.2.15:34411: RDMA Read Response STag 0x20ee1c00 TO 0x7ff3d0012000, 4096 B, last",
		}},
		// Across the wire (--notify send): the notification is an untagged
		// Send on queue 0, and the 4096-byte Read Response is three DDP
		// segments sized to the TCP MSS, only the third marked last.
		{"testdata/siw-twohosts-write.pcap", 7471, []string{
			"10.0.3.2:33760 > 10.0.3.1:7471: MPA Request rev 2, 19 B private data",
			"10.0.3.2:33760 > 10.0.3.1:7471: RDMA Write STag 0x3265ca00 TO 0x7f9ac4001000, 42 B, last",
			"10.0.3.2:33760 > 10.0.3.1:7471: Send QN 0 MSN 1 MO 0, 16 B, last",
			"10.0.3.1:7471 > 10.0.3.2:33760: MPA Reply rev 2, 39 B private data",
		}},
		{"testdata/siw-twohosts-read.pcap", 7471, []string{
			"10.0.3.2:40762 > 10.0.3.1:7471: MPA Request rev 2, 19 B private data",
			"10.0.3.2:40762 > 10.0.3.1:7471: RDMA Read Request QN 1 MSN 1: 4096 B from STag 0x467be300 TO 0x7f3114001000 into STag 0x6943c300 TO 0x7ff0dc001000",
			"10.0.3.1:7471 > 10.0.3.2:40762: MPA Reply rev 2, 39 B private data",
			"10.0.3.1:7471 > 10.0.3.2:40762: RDMA Read Response STag 0x6943c300 TO 0x7ff0dc001000, 1428 B",
			"10.0.3.1:7471 > 10.0.3.2:40762: RDMA Read Response STag 0x6943c300 TO 0x7ff0dc001594, 1428 B",
			"10.0.3.1:7471 > 10.0.3.2:40762: RDMA Read Response STag 0x6943c300 TO 0x7ff0dc001b28, 1240 B, last",
		}},
	} {
		if got := siwMessages(t, tc.file, tc.port); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", tc.file, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
