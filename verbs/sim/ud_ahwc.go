package sim

import (
	"net/netip"

	"github.com/rdmatour/rdmatour/verbs"
)

var _ verbs.AHFromWCMaker = (*pd)(nil)

// CreateAHFromWC is ibv_create_ah_from_wc as libibverbs does it over
// RoCE v2 (ibv_init_ah_from_wc, then ibv_create_ah): with IBV_WC_GRH set
// and an IPv4 header in the GRH's last 20 bytes, the destination GID is
// the IPv4-mapped source address, the source GID index the RoCE v2 GID
// of the destination address, the hop limit the TTL and the traffic
// class the TOS.
func (p *pd) CreateAHFromWC(wc verbs.WC, grh []byte, portNum uint8) (verbs.AH, error) {
	const fn = "ibv_create_ah_from_wc"
	attr := verbs.AHAttr{PortNum: portNum}
	if wc.HasGRH {
		ip := grh[verbs.GRHLen-20:]
		if ip[0]>>4 != 4 {
			return nil, verbs.Errorf(fn, errEINVAL, "the GRH holds no IPv4 header: the simulated NIC is RoCE v2 over IPv4 only")
		}
		attr.IsGlobal = true
		attr.DGID = netip.AddrFrom16(netip.AddrFrom4([4]byte(ip[12:16])).As16())
		attr.SGIDIndex, attr.HopLimit, attr.TrafficClass = udSGIDIndex, ip[8], ip[1]
	}
	ah, err := p.CreateAH(attr)
	if e, ok := err.(*verbs.Error); ok {
		named := *e // the learner called ibv_create_ah_from_wc
		named.Func = fn
		return nil, &named
	}
	return ah, err
}
