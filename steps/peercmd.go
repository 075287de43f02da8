package steps

import (
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The peer's command: a side waiting for a peer that has not shown up
// says exactly what to type in the other terminal or on the other host —
// from its own options (they must match: the same tour, lesson, track,
// notify mode, rnr_retry_count and backend) and its addresses.

// PeerCommand is the command that starts the other side of cfg: for a
// server, the client connecting to addr (one of this server's addresses,
// with the port it listens on); for a client, the server listening on
// cfg.Server's port (addr is ignored). In Chinese it adds --lang zh, so
// the peer reads the same language.
func PeerCommand(cfg Config, addr netip.AddrPort) text.Text {
	var args []string
	if cfg.Role == Server {
		args = append(args, "rdmatour", "client", addr.Addr().String(), "--port", strconv.Itoa(int(addr.Port())))
	} else {
		args = append(args, "rdmatour", "server", "--port", strconv.Itoa(int(cfg.Server.Port())))
	}
	if cfg.Provider != nil {
		args = append(args, "--backend", cfg.Provider.Name())
	}
	args = append(args, matchingFlags(cfg)...)
	cmd := strings.Join(args, " ")
	return text.Text{EN: cmd, ZH: cmd + " --lang zh"}
}

// matchingFlags are the options the peer must repeat, where they differ
// from the defaults: a lesson names its own tour and notify mode.
func matchingFlags(cfg Config) []string {
	var args []string
	if cfg.Lesson != nil {
		args = append(args, "--lesson", cfg.Lesson.Name)
	} else if cfg.Tour != TourWrite {
		args = append(args, "--tour", cfg.Tour.String())
	}
	tour := cfg.Tour
	if cfg.Lesson != nil {
		tour = cfg.Lesson.Tour
	}
	if d, ok := TourOf(tour); ok && d.Notifies && cfg.Lesson == nil && cfg.Notify != NotifySend {
		args = append(args, "--notify", cfg.Notify.String())
	}
	if cfg.Track == TrackManual {
		args = append(args, "--track", cfg.Track.String())
	}
	if cfg.RNRRetry != 0 {
		args = append(args, "--rnr-retry", strconv.Itoa(int(cfg.RNRRetry)))
	}
	return args
}

// PeerAddrs are the addresses a client may use to reach a server
// listening on listen: that address when it is a specific one; when it
// is the wildcard, the addresses of the RDMA device's network
// interfaces (devAddrs, a real device) or else this host's non-loopback
// addresses (hostAddrs); loopback when there is nothing else (one host
// only). IPv4 first: the seed resolves AF_INET.
func PeerAddrs(listen netip.Addr, devAddrs, hostAddrs []netip.Addr) []netip.Addr {
	if listen.IsValid() && !listen.IsUnspecified() {
		return []netip.Addr{listen.Unmap()}
	}
	pick := func(all []netip.Addr) []netip.Addr {
		var v4, v6 []netip.Addr
		for _, a := range all {
			a = a.Unmap()
			switch {
			case a.IsLoopback(), a.IsLinkLocalUnicast(), a.IsMulticast(), a.IsUnspecified():
			case a.Is4():
				v4 = append(v4, a)
			default:
				v6 = append(v6, a)
			}
		}
		return append(v4, v6...)
	}
	if got := pick(devAddrs); len(got) > 0 {
		return got
	}
	if got := pick(hostAddrs); len(got) > 0 {
		return got
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}
}

// interfaceAddrs are the addresses of the named network interfaces, or
// of every interface when names is empty (errors leave an interface out:
// the command then names the others, or loopback).
func interfaceAddrs(names []string) []netip.Addr {
	var ifaces []net.Interface
	if len(names) == 0 {
		ifaces, _ = net.Interfaces()
	}
	for _, n := range names {
		if ifc, err := net.InterfaceByName(n); err == nil {
			ifaces = append(ifaces, *ifc)
		}
	}
	var out []netip.Addr
	for _, ifc := range ifaces {
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				out = append(out, p.Addr())
			}
		}
	}
	return out
}

// listenNote is what the listen step tells the learner: in the demo,
// that the client runs in this window too; otherwise the command that
// starts it, which the wait for its connect request repeats
// (WaitFor) until it shows up.
func (s *Session) listenNote() text.Text {
	if peer, _ := s.linked(); peer != nil {
		return text.Text{EN: "The client runs in this same window: its steps come next, in turn with the server's.",
			ZH: "client 就在同一个窗口里运行：接下来它的步骤和 server 的步骤轮流进行。"}
	}
	local := s.listener.LocalAddr()
	addrs := JoinAddrs(s.cfg.Provider, local.Addr())
	cmd := PeerCommand(s.cfg, netip.AddrPortFrom(addrs[0], local.Port()))
	s.set(func() { s.peerCommand = cmd })
	note := text.Text{EN: "Now start the client, in another terminal or on another host: " + cmd.EN,
		ZH: "现在启动 client（另开一个终端，或在另一台主机上）：" + cmd.ZH}
	if len(addrs) > 1 {
		var others []string
		for _, a := range addrs[1:] {
			others = append(others, a.String())
		}
		note.EN += " (or another of this host's addresses: " + strings.Join(others, ", ") + ")"
		note.ZH += "（也可以用本机的其他地址：" + strings.Join(others, "、") + "）"
	}
	return note
}

// JoinAddrs are the addresses a client of a server listening on listen
// with p may use (PeerAddrs, with this host's interfaces and, for a real
// device, its RDMA devices' network interfaces looked up).
func JoinAddrs(p verbs.Provider, listen netip.Addr) []netip.Addr {
	var devAddrs, hostAddrs []netip.Addr
	if listen.IsUnspecified() {
		if !p.Simulated() {
			devAddrs = interfaceAddrs(deviceNetdevs(p))
		}
		hostAddrs = interfaceAddrs(nil)
	}
	return PeerAddrs(listen, devAddrs, hostAddrs)
}

// deviceNetdevs are the network interfaces of the provider's RDMA
// devices (a real device's RoCE traffic leaves through them).
func deviceNetdevs(p verbs.Provider) []string {
	devs, err := p.Devices()
	if err != nil {
		return nil
	}
	var names []string
	for _, d := range devs {
		names = append(names, d.Netdevs...)
	}
	return names
}
