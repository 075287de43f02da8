package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/rdmacore"
)

// openReal opens the real verbs backend and checks that a device with an
// ACTIVE port serves target (the address the tour binds to or connects
// to); an invalid target skips that last check, so that rdma_cm itself
// reports an address no device serves (RDMA_CM_EVENT_ADDR_ERROR). The
// error says why not, in words that lead to the fix.
func openReal(target netip.Addr) (verbs.Provider, error) {
	p, err := rdmacore.Open()
	if err != nil {
		return nil, err
	}
	devs, err := p.Devices()
	if err != nil {
		return nil, fmt.Errorf("listing RDMA devices: %w", err)
	}
	if len(devs) == 0 {
		return nil, errors.New("no RDMA device on this machine (run `rdmatour doctor` to set up Soft-RoCE)")
	}
	if _, err := deviceFor(devs, target); err != nil {
		return nil, err
	}
	return p, nil
}

// deviceAddrs lists the IP addresses of the devices' netdevs: the
// addresses a learner should use with real RDMA.
func deviceAddrs(devs []verbs.DeviceInfo) string {
	var out []string
	for _, d := range devs {
		for _, nd := range d.Netdevs {
			ifc, err := net.InterfaceByName(nd)
			if err != nil {
				continue
			}
			addrs, _ := ifc.Addrs()
			for _, a := range addrs {
				if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Is4() {
					out = append(out, fmt.Sprintf("%s (%s on %s)", p.Addr(), d.Name, nd))
				}
			}
		}
	}
	if len(out) == 0 {
		return "none has an IPv4 address"
	}
	return strings.Join(out, ", ")
}

// deviceFor finds the device whose active port sits on the network
// interface that carries target.
func deviceFor(devs []verbs.DeviceInfo, target netip.Addr) (verbs.DeviceInfo, error) {
	active := func(d verbs.DeviceInfo) bool {
		for _, port := range d.Ports {
			if port.State == verbs.PortActive {
				return true
			}
		}
		return false
	}
	if !target.IsValid() || target.IsUnspecified() {
		for _, d := range devs {
			if active(d) {
				return d, nil
			}
		}
		return verbs.DeviceInfo{}, fmt.Errorf("no RDMA device has an ACTIVE port (%s): check the cable/link with `rdma link`", deviceNames(devs))
	}
	ifname, err := interfaceFor(target)
	if err != nil {
		return verbs.DeviceInfo{}, err
	}
	if ifname == "lo" || target.IsLoopback() {
		return verbs.DeviceInfo{}, fmt.Errorf("%s is loopback, which no RDMA device serves: use a device's address: %s", target, deviceAddrs(devs))
	}
	for _, d := range devs {
		for _, nd := range d.Netdevs {
			if nd == ifname {
				if !active(d) {
					return d, fmt.Errorf("%s (on %s) has no ACTIVE port: `ip link set %s up` and check `rdma link`", d.Name, ifname, ifname)
				}
				return d, nil
			}
		}
	}
	return verbs.DeviceInfo{}, fmt.Errorf("%s is reached through %s, which has no RDMA device (%s): use an address on an RDMA netdev, or `rdma link add rxe0 type rxe netdev %s`",
		target, ifname, deviceNames(devs), ifname)
}

func deviceNames(devs []verbs.DeviceInfo) string {
	var parts []string
	for _, d := range devs {
		parts = append(parts, fmt.Sprintf("%s on %s", d.Name, strings.Join(d.Netdevs, ",")))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// interfaceFor names the local interface that carries traffic to addr:
// the interface that owns addr, or else the one the routing table picks
// (a UDP "connect" sends nothing, it only asks the kernel for the route).
func interfaceFor(addr netip.Addr) (string, error) {
	local := addr
	if !ownsAddr(addr) {
		c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr, 9)))
		if err != nil {
			return "", fmt.Errorf("no route to %s: %w", addr, err)
		}
		local = c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap()
		c.Close()
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return "", fmt.Errorf("listing network interfaces: %w", err)
	}
	for _, ifc := range ifs {
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Unmap() == local {
				return ifc.Name, nil
			}
		}
	}
	return "", fmt.Errorf("no network interface has %s", local)
}

func ownsAddr(addr netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Unmap() == addr.Unmap() {
			return true
		}
	}
	return false
}
