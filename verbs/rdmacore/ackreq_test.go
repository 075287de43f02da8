//go:build linux && cgo

package rdmacore

import (
	"bytes"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// TestRxeAckReqEvery66: how many ACKs rxe's responder sends for one long
// WRITE. init_req_packet sets AckReq on the last packet and on every 66th
// since the last that asked (rxe_req.c, "qp->req.noack_pkts++ >
// RXE_MAX_PKT_PER_ACK", 64), and the responder ACKs each packet that asks
// (rxe_resp.c acknowledge). A WRITE of 200 packets at the 1024-byte path
// MTU asks on packets 65, 131, 197 and 199: both QPs on one device, it
// moves sent_pkts and rcvd_pkts by 200 + 4. Twin: the sim's
// TestAckReqEvery66.
func TestRxeAckReqEvery66(t *testing.T) {
	const npkts = 200
	p := open(t)
	pr := connect(t, p, rdmaAddr(t, p), defaults())
	cli, srv := &pr.cli, &pr.srv
	if mtu := must(cli.qp.Query())(t).PathMTU; mtu != 1024 {
		t.Skipf("path MTU %d: the count below is for 1024", mtu)
	}
	remote := must(srv.pd.RegMR(npkts<<10, verbs.AccessLocalWrite|verbs.AccessRemoteWrite))(t)
	defer func() { noErr(t, remote.Dereg()) }()
	local := must(cli.pd.RegMR(npkts<<10, verbs.AccessLocalWrite))(t)
	defer func() { noErr(t, local.Dereg()) }()
	data := bytes.Repeat([]byte("0123456789abcdef"), npkts<<10/16)
	noErr(t, local.Write(0, data))

	dev, port := cli.id.Device(), cli.id.PortNum()
	time.Sleep(100 * time.Millisecond) // sysfs caches hw_counters for 10 ms
	before := must(dev.Counters(port))(t)
	cli.post(t, verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
		SGList:     []verbs.SGE{{Addr: local.Addr(), Length: npkts << 10, LKey: local.LKey()}},
		RemoteAddr: remote.Addr(), RKey: remote.RKey()})
	if wc := waitWC(t, cli.cq); wc.Status != verbs.WCSuccess {
		t.Fatalf("WRITE: %+v (%s)", wc, wc.Status)
	}
	if got := must(remote.Read(0, npkts<<10))(t); !bytes.Equal(got, data) {
		t.Fatal("the WRITE's bytes differ at the server")
	}
	time.Sleep(100 * time.Millisecond)
	after := must(dev.Counters(port))(t)
	sent, rcvd := after["sent_pkts"]-before["sent_pkts"], after["rcvd_pkts"]-before["rcvd_pkts"]
	t.Logf("FACT one WRITE of %d packets, both QPs on one device: sent_pkts +%d, rcvd_pkts +%d", npkts, sent, rcvd)
	if sent != npkts+4 || rcvd != npkts+4 {
		t.Errorf("sent_pkts +%d, rcvd_pkts +%d; want %d each (the WRITE and 4 ACKs)", sent, rcvd, npkts+4)
	}
}
