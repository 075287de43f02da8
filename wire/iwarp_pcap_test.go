package wire

import (
	"os"
	"strings"
	"testing"
)

// siwMessages decodes a capture made in the guest on siw0 (tcpdump -i lo
// on the tour's port 7472, both sides on 10.0.2.15), every direction.
func siwMessages(t *testing.T, file string) []string {
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
	for _, s := range TCPStreams(frames, 7472) {
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
		want []string
	}{
		{"testdata/siw-write.pcap", []string{
			"10.0.2.15:47782 > 10.0.2.15:7472: MPA Request rev 2, 19 B private data",
			"10.0.2.15:47782 > 10.0.2.15:7472: RDMA Write STag 0x9f411200 TO 0x7fb280001000, 42 B, last",
			"10.0.2.15:47782 > 10.0.2.15:7472: RDMA Write STag 0x51b5cb00 TO 0x7fb280003000, 8 B, last",
			"10.0.2.15:7472 > 10.0.2.15:47782: MPA Reply rev 2, 39 B private data",
		}},
		{"testdata/siw-read.pcap", []string{
			"10.0.2.15:34411 > 10.0.2.15:7472: MPA Request rev 2, 19 B private data",
			"10.0.2.15:34411 > 10.0.2.15:7472: RDMA Read Request QN 1 MSN 1: 4096 B from STag 0x5161e300 TO 0x7f53a4001000 into STag 0x20ee1c00 TO 0x7ff3d0012000",
			"10.0.2.15:7472 > 10.0.2.15:34411: MPA Reply rev 2, 39 B private data",
			"10.0.2.15:7472 > 10.0.2.15:34411: RDMA Read Response STag 0x20ee1c00 TO 0x7ff3d0012000, 4096 B, last",
		}},
	} {
		if got := siwMessages(t, tc.file); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", tc.file, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
