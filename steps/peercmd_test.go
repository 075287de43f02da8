package steps

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// namedProvider is a provider that only names itself (the command needs
// nothing else of it).
type namedProvider struct {
	verbs.Provider
	name string
}

func (p namedProvider) Name() string { return p.name }

// TestPeerCommand: the command the waiting side prints for its peer
// repeats every option the two must share, and only those that differ
// from the defaults.
func TestPeerCommand(t *testing.T) {
	at := netip.MustParseAddrPort("192.0.2.10:7471")
	simNIC, rdma := sim.New(sim.Options{}), namedProvider{name: "rdma"}
	srv := func(c Config) Config { c.Role = Server; return c }
	cli := func(c Config) Config { c.Role, c.Server = Client, netip.MustParseAddrPort("192.0.2.10:7480"); return c }
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"write tour", srv(Config{Provider: simNIC}), "rdmatour client 192.0.2.10 --port 7471 --backend sim"},
		{"read tour", srv(Config{Provider: simNIC, Tour: TourRead}), "rdmatour client 192.0.2.10 --port 7471 --backend sim --tour read"},
		{"real device", srv(Config{Provider: rdma, Tour: TourAtomic}), "rdmatour client 192.0.2.10 --port 7471 --backend rdma --tour atomic"},
		{"doorbell, manual track", srv(Config{Provider: simNIC, Notify: NotifyDoorbell, Track: TrackManual}),
			"rdmatour client 192.0.2.10 --port 7471 --backend sim --notify doorbell --track manual"},
		{"notify on a tour without one", srv(Config{Provider: simNIC, Tour: TourUD, Notify: NotifyImm}), "rdmatour client 192.0.2.10 --port 7471 --backend sim --tour ud"},
		{"lesson", srv(Config{Provider: simNIC, Lesson: lessonNamed("no-recv"), RNRRetry: 7}),
			"rdmatour client 192.0.2.10 --port 7471 --backend sim --lesson no-recv --rnr-retry 7"},
		{"lesson of the read tour", srv(Config{Provider: simNIC, Lesson: lessonNamed("no-remote-read")}),
			"rdmatour client 192.0.2.10 --port 7471 --backend sim --lesson no-remote-read"},
		{"client: the server to start", cli(Config{Provider: simNIC, Tour: TourRead}), "rdmatour server --port 7480 --backend sim --tour read"},
	} {
		got := PeerCommand(tt.cfg, at)
		if got.EN != tt.want || got.ZH != tt.want+" --lang zh" {
			t.Errorf("%s:\n got  %q / %q\n want %q", tt.name, got.EN, got.ZH, tt.want)
		}
	}
}

// TestPeerAddrs: which addresses the command offers for a listening
// address.
func TestPeerAddrs(t *testing.T) {
	a := func(s ...string) []netip.Addr {
		var out []netip.Addr
		for _, x := range s {
			out = append(out, netip.MustParseAddr(x))
		}
		return out
	}
	host := a("127.0.0.1", "::1", "fe80::1", "2001:db8::5", "192.0.2.2", "198.51.100.7")
	for _, tt := range []struct {
		name      string
		listen    netip.Addr
		dev, host []netip.Addr
		want      []netip.Addr
	}{
		{"a specific address", netip.MustParseAddr("192.0.2.9"), nil, host, a("192.0.2.9")},
		{"v4-mapped", netip.MustParseAddr("::ffff:192.0.2.9"), nil, host, a("192.0.2.9")},
		{"wildcard: the host's, IPv4 first, no loopback or link-local", netip.IPv4Unspecified(), nil, host, a("192.0.2.2", "198.51.100.7", "2001:db8::5")},
		{"wildcard on a real device: its netdev's", netip.IPv4Unspecified(), a("fe80::2", "10.1.0.1"), host, a("10.1.0.1")},
		{"wildcard, device netdev without addresses", netip.IPv6Unspecified(), a("fe80::2"), host, a("192.0.2.2", "198.51.100.7", "2001:db8::5")},
		{"nothing but loopback", netip.IPv4Unspecified(), nil, a("127.0.0.1", "::1"), a("127.0.0.1")},
	} {
		if got := PeerAddrs(tt.listen, tt.dev, tt.host); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
