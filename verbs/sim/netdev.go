package sim

import (
	"net"
	"net/netip"
)

// netdevOf names the interface of this host that has address a, or ""
// when none has it.
func netdevOf(a netip.Addr) string {
	ifs, err := net.Interfaces()
	if err != nil {
		return ""
	}
	a = a.Unmap()
	for _, ifc := range ifs {
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, x := range addrs {
			if pn, ok := x.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(pn.IP); ok && ip.Unmap() == a {
					return ifc.Name
				}
			}
		}
	}
	return ""
}

// onOtherNetdev says dst is an address of this host on an interface sim0
// does not sit on: rdma_cm resolves it (the route is local) but then
// finds no RDMA device whose GID table holds it, and delivers
// RDMA_CM_EVENT_ADDR_ERROR with status -ENODEV (cma.c addr_handler:
// cma_acquire_dev_by_src_ip). Measured on rxe: an address added to lo
// (not 127/8, which rdma_cm binds to any device) gave -19 in 3 ms.
func (d *device) onOtherNetdev(dst netip.Addr) bool {
	dst = dst.Unmap()
	if dst.IsLoopback() || dst.IsUnspecified() {
		return false
	}
	nd := netdevOf(dst)
	return nd != "" && nd != d.netdev
}
