//go:build linux && cgo

package rdmacore

import (
	"net"
	"net/netip"
	"testing"
)

// TestLocalPeer: a peer at one of this host's addresses is local (rxe
// would loop its packets back past netfilter); another host's is not.
func TestLocalPeer(t *testing.T) {
	cases := []struct {
		addr netip.Addr
		want bool
	}{
		{netip.MustParseAddr("127.0.0.1"), true},
		{netip.MustParseAddr("::ffff:127.0.0.1"), true},
		{netip.Addr{}, false},                      // not known (a request id may not have it yet): let it try
		{netip.MustParseAddr("192.0.2.77"), false}, // TEST-NET-1: nobody's
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(n.IP); ok && !ip.IsLoopback() {
					cases = append(cases, struct {
						addr netip.Addr
						want bool
					}{ip.Unmap(), true})
					break
				}
			}
		}
	}
	for _, tc := range cases {
		if got := local(tc.addr); got != tc.want {
			t.Errorf("local(%v) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}
