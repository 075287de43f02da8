package rdmacore

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

func TestNetdevByMAC(t *testing.T) {
	dir := t.TempDir()
	for name, mac := range map[string]string{"lo": "00:00:00:00:00:00", "eth0": "52:54:00:12:34:56", "eth1": "52:54:00:00:03:01"} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "address"), []byte(mac+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ gid, want string }{
		{"5254:12:3456::", "eth0"},      // siw0 on eth0, as measured
		{"5254:0:301::", "eth1"},        // a second guest's MAC
		{"5254:0:399::", ""},            // no such interface
		{"::", ""},                      // an all-zero MAC names nothing (lo has it)
		{"fe80::5054:ff:fe12:3456", ""}, // a RoCE link-local GID is no MAC
	} {
		if got := netdevByMAC(dir, netip.MustParseAddr(tc.gid)); got != tc.want {
			t.Errorf("netdevByMAC(%s) = %q, want %q", tc.gid, got, tc.want)
		}
	}
	if got := netdevByMAC(filepath.Join(dir, "missing"), netip.MustParseAddr("5254:12:3456::")); got != "" {
		t.Errorf("no sysfs: %q", got)
	}
}
