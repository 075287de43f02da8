package rdmacore

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
)

// netdevByMAC is the network interface under sysnet (/sys/class/net)
// whose MAC address is the first six bytes of gid, or "".
//
// Why: siw fills no gid_attrs/ndevs (its GID is not a RoCE GID), so the
// netdev an iWARP device sits on cannot be read the way rxe's is; siw's
// one GID is the netdev's MAC in its first six bytes (siw_verbs.c
// siw_query_gid copies sdev->raw_gid, the netdev's dev_addr), which
// names the interface. Measured: siw0 on eth0 52:54:00:12:34:56 has GID
// 5254:12:3456:: (TestSiwDeviceAndRefusals).
func netdevByMAC(sysnet string, gid netip.Addr) string {
	raw := gid.As16()
	mac := net.HardwareAddr(raw[:6]).String()
	if mac == "00:00:00:00:00:00" {
		return ""
	}
	ents, err := os.ReadDir(sysnet)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(sysnet, e.Name(), "address"))
		if err == nil && strings.TrimSpace(string(b)) == mac {
			return e.Name()
		}
	}
	return ""
}
