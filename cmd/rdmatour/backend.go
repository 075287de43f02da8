package main

import (
	"fmt"
	"net/netip"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// chooseBackend picks the verbs provider for the tour and says why, so
// the screen can tell the learner whether they are on real RDMA.
func chooseBackend(o options, target netip.Addr) (verbs.Provider, string, error) {
	switch o.backend {
	case "sim":
		return sim.New(sim.Options{}), "chosen with --backend sim", nil
	case "rdma":
		p, err := openReal(target)
		if err != nil {
			return nil, "", fmt.Errorf("--backend rdma: %w", err)
		}
		return p, "real verbs (libibverbs + librdmacm)", nil
	}
	p, err := openReal(target)
	if err != nil {
		return sim.New(sim.Options{}), "no real RDMA here: " + err.Error(), nil
	}
	return p, "real verbs (libibverbs + librdmacm)", nil
}
