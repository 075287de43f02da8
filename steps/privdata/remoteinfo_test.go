package privdata_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps/privdata"
)

func TestRemoteInfoWireFormat(t *testing.T) {
	info := privdata.RemoteInfo{Addr: 0x00007f1234560000, RKey: 0x1234, Size: 4096,
		DoorbellAddr: 0x00007f9876540000, DoorbellRKey: 0xabcd, DoorbellSize: 8}
	raw := info.Marshal()
	want := "00 00 7f 12 34 56 00 00 00 00 12 34 00 00 10 00 00 00 7f 98 76 54 00 00 00 00 ab cd 00 00 00 08"
	if got := strings.TrimSpace(strings.ReplaceAll(hex(raw), "  ", " ")); got != want {
		t.Errorf("wire bytes\n got %s\nwant %s", got, want)
	}
	padded := append(raw, make([]byte, 196-32)...)
	back, err := privdata.ParseRemoteInfo(padded)
	if err != nil || back != info {
		t.Errorf("ParseRemoteInfo(padded) = %+v, %v", back, err)
	}
	if _, err := privdata.ParseRemoteInfo(raw[:31]); err == nil {
		t.Error("31 bytes of private data parsed without error")
	}
}

func hex(b []byte) string {
	const digits = "0123456789abcdef"
	var sb strings.Builder
	for i, c := range b {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteByte(digits[c>>4])
		sb.WriteByte(digits[c&15])
	}
	return sb.String()
}
