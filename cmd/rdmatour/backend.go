package main

import (
	"errors"
	"net/netip"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/rdmacore"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// chooseBackend picks the verbs provider for the tour and says why, so
// the screen can tell the learner whether they are on real RDMA.
func chooseBackend(o options, target netip.Addr) (verbs.Provider, string, error) {
	switch o.backend {
	case backendSim:
		return sim.New(sim.Options{}), "chosen with --backend sim", nil
	case backendRDMA:
		// Exactly what was asked: rdma_cm itself judges the address.
		p, err := openReal(netip.Addr{})
		if errors.Is(err, rdmacore.ErrUnavailable) { // err says why and how to rebuild
			return nil, "", &steps.Problem{Err: err,
				What: steps.Text{EN: "--backend rdma: no real verbs in this rdmatour", ZH: "--backend rdma：这个 rdmatour 不含真实 verbs 支持"},
				Fix:  steps.Text{EN: "use --backend sim: the same tour on the simulated NIC", ZH: "改用 --backend sim：在模拟网卡上走同样的教程"}}
		}
		if err != nil {
			return nil, "", &steps.Problem{Err: err,
				What: steps.Text{EN: "--backend rdma: real RDMA is not usable here", ZH: "--backend rdma：这台机器上用不了真实 RDMA"},
				Fix:  steps.Text{EN: "run `rdmatour doctor` for the fix, or use --backend sim", ZH: "运行 `rdmatour doctor` 查看修复方法，或改用 --backend sim"}}
		}
		return p, "real verbs (libibverbs + librdmacm)", nil
	}
	p, err := openReal(target)
	if errors.Is(err, rdmacore.ErrUnavailable) {
		return sim.New(sim.Options{}), err.Error(), nil // already says "only the simulated NIC"
	}
	if err != nil {
		return sim.New(sim.Options{}), "no real RDMA for " + target.String() + ": " + err.Error(), nil
	}
	return p, "real verbs (libibverbs + librdmacm)", nil
}
