// Package sim is rdmatour's simulated RDMA NIC: a software RNIC with RC
// semantics that implements the verbs API in pure Go. It is honest about
// being one: the device is "sim0", its transport "simulated".
//
// Peers talk over TCP on the port rdma_cm would use. One TCP connection
// carries one RC connection: first the CM handshake (REQ/REP/RTU, REJ,
// DREQ/DREP), then InfiniBand-shaped transport packets with real BTH
// opcodes, PSNs, RETH/AETH/ImmDt. Everything a peer sends is untrusted: the
// decoders in wire.go and wire_packet.go never panic and every remote
// access is checked against a registered MR before a byte is written.
//
// Threading: each connection has one reader goroutine (it runs the
// responder and the requester's completer, both under the QP's mutex) and
// one writer goroutine fed by an unbounded queue, so the reader never blocks
// on a write (two readers blocked writing ACKs to each other would
// deadlock). Payload bytes are copied out of the MR only when the writer
// encodes the packet, so a queue of large WRITEs costs no extra memory.
//
// Locks: a qp's parts (qpAttrs, requesterState, rnrWait, ackRetry,
// responderState) are guarded by qp.mu, and a cmID's (cmListen, cmTimers,
// cmDisconnect, cmParams) by cmID.mu, as the fields they hold were before
// they had types of their own; a part has no lock of its own.
package sim

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Options tunes the simulated NIC. The zero value is a sensible default.
type Options struct {
	// CMTimeout bounds the TCP dial and the wait for the peer's CM to answer
	// a REQ (default 5 s). Exceeding it gives RDMA_CM_EVENT_UNREACHABLE with
	// status -ETIMEDOUT, as an unanswered IB CM REQ does.
	CMTimeout time.Duration
	// HandshakeTimeout is how long one side of the CM handshake waits for
	// the peer's next message once the peer's CM has acknowledged the last
	// one (the MRA): the REP after a REQ, the RTU after a REP. rdma_cm
	// keeps such a wait alive while a person decides (rdma_accept, or
	// fetching ESTABLISHED); exceeding it gives RDMA_CM_EVENT_UNREACHABLE
	// with status -ETIMEDOUT. Default 17 min, what the kernel's constants
	// give on RoCE (see defaultHandshakeTimeout).
	HandshakeTimeout time.Duration
	// DisconnectTimeout is how long rdma_disconnect waits for the DREP before
	// delivering RDMA_CM_EVENT_DISCONNECTED anyway (default 1 s).
	DisconnectTimeout time.Duration
	// MinRNRTimer is the 5-bit IBA RNR timer code the responder puts in its
	// RNR NAKs (qp_attr.min_rnr_timer). 0 means the default 12 (0.64 ms);
	// the IBA value 0 (655.36 ms) is not selectable because it would make
	// every RNR demo crawl.
	MinRNRTimer uint8
	// ACKTimeout is the timeout code rdma_cm gives an RC QP at RTS: its
	// local ACK timeout is 4.096 µs × 2^ACKTimeout. 0 means rxe's 19
	// (rxeACKTimeout); a test about retry logic rather than its pace may
	// ask for a shorter one.
	ACKTimeout uint8
	// TraceWindow is how many packets the device remembers for the wire
	// pane (default 512).
	TraceWindow int
	// Addr is the address whose IPv4-mapped form becomes GID 0. Default:
	// the first non-loopback IPv4 address of the host, else 127.0.0.1.
	Addr netip.Addr
	// Logger receives debug messages about dropped frames and peers; nil
	// discards them.
	Logger *slog.Logger
	// Warn, when set, hears what a person should know about this NIC
	// (a listener that cannot accept), in one line; nil sends it to Logger.
	Warn func(line string)
	// RxeWindow plays rxe's window of 128 unacknowledged PSNs. Off by
	// default: it halves a stream of 64 KiB WRITEs between two processes
	// (window.go), and the tours' messages never reach it.
	RxeWindow bool
	// Pcap, if set, receives every packet and CM message as the RoCEv2
	// frame a real NIC would send (see tap.go), in pcap format.
	Pcap io.Writer
	// CapIPCLock, when set, says whether the simulated process has
	// CAP_IPC_LOCK (which lifts a limit set by LimitPinning); nil asks
	// the real process (verbs.HasCapIPCLock).
	CapIPCLock func() bool
	// Profile is the NIC this one plays (profile.go): rxe by default.
	Profile Profile
}

// Provider is one process's simulated NIC. It implements verbs.Provider.
type Provider struct {
	opts Options
	log  *slog.Logger
	dev  *device
	pcap *pcapSink // nil without Options.Pcap

	// wg counts every goroutine and pending timer of this provider, so tests
	// can prove that a full teardown leaves nothing running.
	wg sync.WaitGroup
	// running counts the same goroutines and timers as wg, for Quiesce,
	// which must not Wait on wg while a late frame may still Add to it.
	running atomic.Int64

	mu   sync.Mutex
	live verbs.ResourceCount
	pins pinAccount // the pinned pages of its MRs (pin.go)
}

var _ verbs.Provider = (*Provider)(nil)

// New creates a simulated NIC.
func New(opts Options) *Provider {
	if opts.CMTimeout <= 0 {
		opts.CMTimeout = 5 * time.Second
	}
	if opts.DisconnectTimeout <= 0 {
		opts.DisconnectTimeout = time.Second
	}
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = defaultHandshakeTimeout
	}
	if opts.MinRNRTimer == 0 || opts.MinRNRTimer > 31 {
		opts.MinRNRTimer = 12
	}
	if opts.ACKTimeout == 0 || opts.ACKTimeout > 31 {
		opts.ACKTimeout = rxeACKTimeout
	}
	if opts.TraceWindow <= 0 {
		opts.TraceWindow = 512
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p := &Provider{opts: opts, log: log, pcap: newPcapSink(opts.Pcap)}
	p.dev = newDevice(p)
	return p
}

// Name is "sim".
func (p *Provider) Name() string { return "sim" }

// Simulated is true: the UI must say so.
func (p *Provider) Simulated() bool { return true }

// Devices lists the one simulated device.
func (p *Provider) Devices() ([]verbs.DeviceInfo, error) {
	return []verbs.DeviceInfo{p.dev.Info()}, nil
}

// Live counts the objects still allocated.
func (p *Provider) Live() verbs.ResourceCount {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}

func (p *Provider) count(f func(*verbs.ResourceCount)) {
	p.mu.Lock()
	f(&p.live)
	p.mu.Unlock()
}

// goStart runs f on a goroutine tracked by p.wg.
func (p *Provider) goStart(f func()) {
	p.add()
	go func() {
		defer p.done()
		f()
	}()
}

// afterFunc is time.AfterFunc tracked by p.wg; stop it with stopTimer.
func (p *Provider) afterFunc(d time.Duration, f func()) *time.Timer {
	p.add()
	return time.AfterFunc(d, func() {
		defer p.done()
		f()
	})
}

func (p *Provider) stopTimer(t *time.Timer) {
	if t != nil && t.Stop() {
		p.done()
	}
}

// warn tells a person (Options.Warn) or the log.
func (p *Provider) warn(line string) {
	if p.opts.Warn != nil {
		p.opts.Warn(line)
		return
	}
	p.log.Warn(line)
}

func (p *Provider) add()  { p.wg.Add(1); p.running.Add(1) }
func (p *Provider) done() { p.running.Add(-1); p.wg.Done() }

// Quiesce waits, at most d, until every goroutine and timer of this NIC
// has ended, and reports whether they all did. After a teardown that is
// when the last frame is on the wire and the CM exchange it belongs to
// has ended: a destroyed id's DREP or DREQ is written (conn.writeLoop),
// and its connection has lingered for the peer's answer (conn.shutdown),
// which the capture records. A process that exits at once instead loses
// what its writer had queued — its DREP, seen missing from the peer's
// --pcap on a loaded machine — and its own capture lacks the peer's
// answer. cmd calls it before closing the capture and exiting.
func (p *Provider) Quiesce(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for p.running.Load() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

const (
	// activeMTU is sim0's active MTU and the path MTU rdma_cm gives its
	// QPs: what rxe reports over a 1500-byte Ethernet. rxe derives it from
	// the netdev's MTU minus its headers (eth_mtu_int_to_enum in
	// rxe_param.h): 1500 leaves room for 1024, not 2048.
	activeMTU = 1024
	// maxMTU is the largest path MTU ibv_modify_qp accepts: rxe reports
	// max_mtu IB_MTU_4096 (RXE_PORT_MAX_MTU) whatever the netdev, and
	// rxe_qp_chk_attr checks path_mtu against it, not the active MTU.
	maxMTU   = 4096
	pageSize = 4096
)

// device is sim0, the provider's single RNIC.
type device struct {
	p      *Provider
	gid    netip.Addr
	netdev string
	guid   string

	counters [numCounters]atomic.Uint64

	mu     sync.Mutex
	nextPD uint32
	mrs    map[uint32]*mr // by key index (key >> 8)
	nextMR uint32
	nextVA uint64
	qps    map[uint32]*qp
	peers  map[uint32]*cmID // by the peer's QPN: the CM connection an RTR's dest_qp_num is bound to
	ring   traceRing        // the packet trace (sim_trace.go)
}

var _ verbs.Device = (*device)(nil)
var _ verbs.PacketTracer = (*device)(nil)

func newDevice(p *Provider) *device {
	addr, netdev := p.opts.Addr, "lo"
	if !addr.IsValid() {
		addr, netdev = hostIPv4()
	}
	g := netip.AddrFrom16(addr.Unmap().As16())
	if addr.Unmap().Is4() {
		a4 := addr.Unmap().As4()
		g = netip.AddrFrom16([16]byte{10: 0xff, 11: 0xff, 12: a4[0], 13: a4[1], 14: a4[2], 15: a4[3]})
	}
	return &device{
		p:      p,
		gid:    g,
		netdev: netdev,
		guid:   fmt.Sprintf("%04x:%04x:%04x:%04x", 0x5eed, rand.N(1<<16), rand.N(1<<16), rand.N(1<<16)),
		nextPD: 1,
		mrs:    map[uint32]*mr{},
		nextMR: 1,
		// User virtual addresses live high (0x7fxx_xxxx_x000); randomising
		// the base per provider keeps a learner from hard-coding one, and
		// keeping it above 2^32 makes a 32-bit truncation (htonl on an
		// address) land outside every MR.
		nextVA: 0x7f00_0000_0000 + uint64(rand.N(0xf0))<<32 + uint64(rand.N(1<<20))*pageSize,
		qps:    map[uint32]*qp{},
		peers:  map[uint32]*cmID{},
		ring:   newTraceRing(p.opts.TraceWindow),
	}
}

// hostIPv4 picks the address GID 0 shows: the first non-loopback IPv4
// address, because that is what rxe on eth0 would show.
func hostIPv4() (netip.Addr, string) {
	ifs, err := net.Interfaces()
	if err == nil {
		for _, ifc := range ifs {
			if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
				continue
			}
			addrs, err := ifc.Addrs()
			if err != nil {
				continue
			}
			for _, a := range addrs {
				if pn, ok := a.(*net.IPNet); ok {
					if ip, ok := netip.AddrFromSlice(pn.IP); ok && ip.Unmap().Is4() {
						return ip.Unmap(), ifc.Name
					}
				}
			}
		}
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1}), "lo"
}

// linkLocal is sim0's IPv6 link-local GID: fe80:: and the node GUID, as
// rxe's is fe80:: and the EUI-64 its GUID is made of.
func (d *device) linkLocal() netip.Addr {
	a, err := netip.ParseAddr("fe80::" + d.guid)
	if err != nil {
		return netip.MustParseAddr("fe80::1")
	}
	return a
}

func (d *device) portAttr() verbs.PortAttr {
	return verbs.PortAttr{
		Num:         1,
		State:       verbs.PortActive,
		ActiveMTU:   activeMTU,
		MaxMTU:      maxMTU,
		LinkLayer:   "Ethernet",
		GIDs:        d.limits().gidTable(d.gid, d.linkLocal()),
		MaxMsgSize:  1 << 31,
		ActiveSpeed: "simulated",
	}
}

// Info describes sim0.
func (d *device) Info() verbs.DeviceInfo {
	return verbs.DeviceInfo{
		Name:      "sim0",
		Transport: "simulated",
		NodeGUID:  d.guid,
		Netdevs:   []string{d.netdev},
		Ports:     []verbs.PortAttr{d.portAttr()},
		// rxe0's values, measured in the guest: atomics are atomic among
		// the device's own QPs (the CPU may interleave).
		MaxQPRdAtom: int(d.limits().MaxQPRdAtom), MaxQPInitRdAtom: int(d.limits().MaxQPRdAtom), AtomicCap: verbs.AtomicHCA,
		SendSlotsFreedOnPoll: d.limits().SlotsFreedOnPoll,
	}
}

// QueryPort is ibv_query_port; sim0 has only port 1.
func (d *device) QueryPort(port uint8) (verbs.PortAttr, error) {
	if port != 1 {
		return verbs.PortAttr{}, verbs.Errorf("ibv_query_port", errEINVAL, "port %d does not exist (sim0 has port 1)", port)
	}
	return d.portAttr(), nil
}

// gidTblLen is rxe's gid_tbl_len (RXE_PORT_GID_TBL_LEN).
const gidTblLen = 1024

// QueryGID is ibv_query_gid. As on rxe (measured: TestAddressingFacts),
// an index inside the table with no GID reads as ::, not as an error.
func (d *device) QueryGID(port uint8, index int) (netip.Addr, error) {
	if port != 1 || index < 0 || index >= gidTblLen {
		return netip.Addr{}, verbs.Errorf("ibv_query_gid", errEINVAL, "port %d index %d: sim0 has port 1, GID indexes 0..%d", port, index, gidTblLen-1)
	}
	for _, g := range d.portAttr().GIDs {
		if g.Index == index {
			return g.GID, nil
		}
	}
	return netip.IPv6Unspecified(), nil
}

func (d *device) allocQPN(q *qp) uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		n := uint32(rand.N(0xFFFFFF-0x11)) + 0x11 // 0 and 1 are special QPs in IB
		if _, busy := d.qps[n]; !busy {
			d.qps[n] = q
			return n
		}
	}
}

// defaultHandshakeTimeout is how long rdma_cm on RoCE keeps a handshake
// alive while the peer's application decides, from the kernel's constants
// (drivers/infiniband/core/cma.c and cm.c, Linux 6.1): the passive side's
// CM answers a repeated REQ (or REP) with an MRA whose service timeout is
// 24 (4.096 µs × 2^24, which cm.c rounds to 65.5 s), plus the packet
// lifetime, about 67.6 s per retry; CMA_MAX_CM_RETRIES is 15. Measured
// on Soft-RoCE (QEMU guest, Debian 6.1): in 120 s of a server not calling
// rdma_accept, the client's CM sent the REQ 3 times (the repeats within
// 15 s and about 67 s later) and the server's CM answered with MRAs, and
// the client got no event; the same for a REP
// whose ESTABLISHED the client did not fetch. The full 17 min were not
// waited out.
const defaultHandshakeTimeout = 17 * time.Minute
