package main

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/rdmatour/rdmatour/text"
)

// TestBackendReasonsInBothLanguages: why a backend was chosen is a Text
// made where it is decided, so the state pane shows it in Chinese without
// matching the English.
func TestBackendReasonsInBothLanguages(t *testing.T) {
	_, why, err := chooseBackend(options{backend: backendSim}, netip.Addr{}, nil)
	if err != nil || why != whySim || why.In(text.ZH) != "由 --backend sim 指定" {
		t.Errorf("--backend sim: %+v, %v", why, err)
	}
	got := whyNoRealRDMA(netip.MustParseAddr("10.0.0.1"), errors.New("no device"))
	if got.EN != "no real RDMA for 10.0.0.1: no device" || got.ZH != "10.0.0.1 没有可用的真实 RDMA，改用模拟网卡：no device" {
		t.Errorf("no real RDMA: %+v", got)
	}
	for _, w := range []text.Text{whySim, whyReal, got, whyNoRealVerbs(errors.New("x"))} {
		if !w.Bilingual() {
			t.Errorf("%q has no Chinese", w.EN)
		}
	}
}
