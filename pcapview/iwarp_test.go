package pcapview

import (
	"os"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/text"
)

// Captures of the tours on siw0 (wire/testdata: one guest on lo, and two
// wired guests on eth0) print as iWARP messages, not as "no RoCEv2".
func TestPrintIWARPCaptures(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"../wire/testdata/siw-write.pcap", []string{
			"RoCEv2 (UDP 4791): 0, other: 14",
			"iWARP over TCP (MPA, DDP, RDMAP): 4 messages",
			"  10.0.2.15:47782 > 10.0.2.15:7472  MPA Request rev 2, 19 B private data",
			"  10.0.2.15:47782 > 10.0.2.15:7472  RDMA Write STag 0x9f411200 TO 0x7fb280001000, 42 B, last",
		}},
		{"../wire/testdata/siw-twohosts-read.pcap", []string{
			"iWARP over TCP (MPA, DDP, RDMAP): 6 messages",
			"  10.0.3.2:40762 > 10.0.3.1:7471  RDMA Read Request QN 1 MSN 1: 4096 B from STag 0x467be300 TO 0x7f3114001000 into STag 0x6943c300 TO 0x7ff0dc001000",
			"  10.0.3.1:7471 > 10.0.3.2:40762  RDMA Read Response STag 0x6943c300 TO 0x7ff0dc001b28, 1240 B, last",
		}},
	} {
		f, err := os.Open(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Read(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var b strings.Builder
		if err := Print(&b, "x.pcap", c, text.EN); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w+"\n") {
				t.Errorf("%s: no line %q in\n%s", tc.file, w, b.String())
			}
		}
		if len(c.IWARPProblems) != 0 {
			t.Errorf("%s: problems %q", tc.file, c.IWARPProblems)
		}
	}
}
