package main

import (
	"net"
	"net/netip"
)

// parseSrc reads client --src: an address of this machine, of the
// server's family. rdma_resolve_addr binds the id to it, and an address
// that is not local fails there as RDMA_CM_EVENT_ADDR_ERROR, which reads
// like a missing route to the server (C8 of the hostile review): the
// source is named here instead, before anything runs.
func parseSrc(src string, server netip.Addr) (netip.Addr, error) {
	a, err := netip.ParseAddr(src)
	if err != nil {
		return a, usagef("source address %q is not an IP address", src)
	}
	a = a.Unmap()
	if a.Is4() != server.Unmap().Is4() {
		return a, usagef("--src %s and the server %s are not the same IP version: give a source of the server's family", a, server)
	}
	if !isLocalAddr(a, net.InterfaceAddrs) {
		return a, usagef("--src %s is not an address of this machine (ip addr lists them): give one of its own, or leave --src out", a)
	}
	return a, nil
}

// isLocalAddr says a is one of this machine's addresses (any loopback
// address is). addrs lists the interfaces' addresses.
func isLocalAddr(a netip.Addr, addrs func() ([]net.Addr, error)) bool {
	if a.IsLoopback() {
		return true
	}
	list, err := addrs()
	if err != nil {
		return true // cannot tell: let rdma_resolve_addr decide
	}
	for _, la := range list {
		if pn, ok := la.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(pn.IP); ok && ip.Unmap() == a {
				return true
			}
		}
	}
	return false
}
