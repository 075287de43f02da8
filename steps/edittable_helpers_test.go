package steps_test

import "net/netip"

type netipAddrPort = netip.AddrPort

func parseAddrPort(s string) (netip.AddrPort, error) { return netip.ParseAddrPort(s) }
