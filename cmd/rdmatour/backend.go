package main

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/rdmacore"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// chooseBackend picks the verbs provider for the tour and says why, so
// the screen can tell the learner whether they are on real RDMA.
// pcap, when not nil, receives the RoCEv2 frames (see startWire).
func chooseBackend(o options, target netip.Addr, pcap io.Writer) (verbs.Provider, text.Text, error) {
	switch o.backend {
	case backendSim:
		if o.nic == sim.ProfileStrict {
			return newSim(o, pcap), whySimStrict, nil
		}
		return newSim(o, pcap), whySim, nil
	case backendRDMA:
		// Exactly what was asked: rdma_cm itself judges the address.
		p, err := openReal(netip.Addr{})
		if errors.Is(err, rdmacore.ErrUnavailable) { // err says why and how to rebuild
			return nil, text.Text{}, &steps.Problem{Err: err,
				What: text.Text{EN: "--backend rdma: no real verbs in this rdmatour", ZH: "--backend rdma：这个 rdmatour 不含真实 verbs 支持"},
				Fix:  text.Text{EN: "use --backend sim: the same tour on the simulated NIC", ZH: "改用 --backend sim：在模拟网卡上走同样的教程"}}
		}
		if err != nil {
			return nil, text.Text{}, &steps.Problem{Err: err,
				What: text.Text{EN: "--backend rdma: real RDMA is not usable here", ZH: "--backend rdma：这台机器上用不了真实 RDMA"},
				Fix:  text.Text{EN: "run `rdmatour doctor` for the fix, or use --backend sim", ZH: "运行 `rdmatour doctor` 查看修复方法，或改用 --backend sim"}}
		}
		return p, whyReal, nil
	}
	p, err := openReal(target)
	if errors.Is(err, rdmacore.ErrUnavailable) {
		return newSim(o, pcap), whyNoRealVerbs(err), nil
	}
	if err != nil {
		return newSim(o, pcap), whyNoRealRDMA(target, err), nil
	}
	return p, whyReal, nil
}

// Why a backend was chosen, as the state pane shows it. An error's own
// words stay as the system gave them, inside the Chinese too.
var (
	whySim  = text.Text{EN: "chosen with --backend sim", ZH: "由 --backend sim 指定"}
	whyReal = text.Text{EN: "real verbs (libibverbs + librdmacm)", ZH: "真实 verbs（libibverbs + librdmacm）"}
	// whySimStrict says what the strict profile changes from rxe, as the
	// screen shows it (sim.Profile's doc).
	whySimStrict = text.Text{EN: "chosen with --backend sim --nic strict: the strict profile, not rxe — lkey ≠ rkey (rxe: equal), max_inline_data as asked, at most 64 (rxe rounds up, 16 for none), max_qp_rd_atom 4 (rxe: 128), GID 0 RoCE v1 and GID 1 RoCE v2 (rxe here: RoCE v2 at 0), a send queue slot freed when a completion of its WR or a later one is polled (rxe: when the WR is acknowledged)",
		ZH: "由 --backend sim --nic strict 指定：严格配置，不是 rxe —— lkey ≠ rkey（rxe：相同），max_inline_data 按申请给、最多 64（rxe 向上取整，不申请也给 16），max_qp_rd_atom 为 4（rxe：128），GID 0 是 RoCE v1、GID 1 是 RoCE v2（这里的 rxe：RoCE v2 在 0），发送队列槽位要等 poll 到这个 WR 或更晚的 WR 的完成才释放（rxe：WR 一被确认就释放）"}
)

// checkNIC refuses --nic strict where there is no simulated NIC of one
// connection to give it to.
func (o *options) checkNIC() error {
	switch {
	case o.nic != sim.ProfileStrict:
		return nil
	case o.backend != backendSim:
		return usageText(text.Text{EN: "--nic strict is a profile of the simulated NIC: add --backend sim", ZH: "--nic strict 是模拟网卡的配置：请加上 --backend sim"})
	case o.workshop:
		return usageText(text.Text{EN: "--nic strict is for one connection (server, client, demo), not a --workshop room", ZH: "--nic strict 只用于单条连接（server、client、demo），不用于 --workshop 教室"})
	}
	return nil
}

// whyNoRealVerbs is a binary built without real verbs: err already says
// "only the simulated NIC" and how to rebuild.
func whyNoRealVerbs(err error) text.Text {
	return text.Text{EN: err.Error(), ZH: "这个 rdmatour 不含真实 verbs（需要 Linux 和 cgo），只有模拟网卡：" + err.Error()}
}

// whyNoRealRDMA is real verbs that cannot reach target.
func whyNoRealRDMA(target netip.Addr, err error) text.Text {
	return text.Text{EN: "no real RDMA for " + target.String() + ": " + err.Error(),
		ZH: target.String() + " 没有可用的真实 RDMA，改用模拟网卡：" + err.Error()}
}

// newSim makes the simulated NIC. In plain mode its warnings (a listener
// that cannot accept, say, for want of file descriptors) go to stderr,
// where a person or a log sees them; the full-screen UI owns the terminal,
// so there they are dropped.
func newSim(o options, pcap io.Writer) *sim.Provider {
	opts := sim.Options{Pcap: pcap, Profile: o.nic}
	if o.plain || !stdoutIsTerminal() {
		opts.Warn = func(line string) { fmt.Fprintf(os.Stderr, "rdmatour: %s\n", line) }
	}
	return sim.New(opts)
}

// capturer is a real backend that can capture its devices' traffic
// (verbs/rdmacore, built with cgo).
type capturer interface {
	Capture(pcap io.Writer, iwarpPort uint16) error
	StopCapture() error
}

// wireOut is where --pcap goes, and how to finish it.
type wireOut struct {
	file *outFile
	prov verbs.Provider
}

// openPcap creates the --pcap file ("" = none).
func openPcap(path string) (*wireOut, io.Writer, error) {
	if path == "" {
		return &wireOut{}, nil, nil
	}
	f, err := openOut("--pcap", path)
	if err != nil {
		return nil, nil, err
	}
	return &wireOut{file: f}, f, nil
}

// headerWritten reports a --pcap whose header could not be written (a
// full device): refused before the first step, not after the tour.
func (w *wireOut) headerWritten() error {
	if w.file == nil {
		return nil
	}
	if err := w.file.settle(closeWait); err != nil {
		return usagef("--pcap %s: %v", w.file.path, err)
	}
	return nil
}

// start begins capturing on a real device so the wire pane shows the real
// packets (and --pcap gets them); port is the rdma_cm port, the TCP port
// of an iWARP device's connection. Without CAP_NET_RAW the tour still runs
// and the pane says why it shows no packets — unless --pcap asked for
// them, which then fails with the way to get the capability.
func (w *wireOut) start(prov verbs.Provider, pcap io.Writer, port uint16) error {
	w.prov = prov
	c, ok := prov.(capturer)
	if !ok {
		return nil
	}
	if err := c.Capture(pcap, port); err != nil && pcap != nil {
		return &steps.Problem{Err: err,
			What: text.Text{EN: "--pcap: cannot capture the RDMA device's packets", ZH: "--pcap：无法抓取 RDMA 设备的报文"},
			Fix:  text.Text{EN: err.Error(), ZH: "需要 CAP_NET_RAW：用 root 运行，或执行一次 sudo setcap cap_net_raw+ep <rdmatour 的路径>"}}
	}
	return nil
}

// quiesceTime bounds how long finish lets the simulated NIC put its last
// frames on the wire: its connections linger a second for the peer's
// answer (verbs/sim conn.shutdown), so two is enough with room to spare.
const quiesceTime = 2 * time.Second

// finish lets the NIC finish its last CM exchange, stops the capture and
// closes the file, returning the first error.
func (w *wireOut) finish() error {
	if q, ok := w.prov.(interface{ Quiesce(time.Duration) bool }); ok {
		q.Quiesce(quiesceTime)
	}
	var first error
	if c, ok := w.prov.(capturer); ok {
		first = c.StopCapture()
	}
	if s, ok := w.prov.(interface{ PcapErr() error }); ok && first == nil {
		first = s.PcapErr()
	}
	if first != nil && w.file != nil {
		first = fmt.Errorf("--pcap %s: %w", w.file.path, first)
	}
	if w.file != nil {
		if err := w.file.Close(); err != nil && first == nil {
			first = err // names --pcap and the path
		}
	}
	return first
}
