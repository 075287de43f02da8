//go:build linux && cgo

package rdmacore

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
	"github.com/rdmatour/rdmatour/wire/capture"
)

// The real wire: a capture on each RDMA device's network interface shows
// the RoCEv2 packets the device sends and receives (see wire/capture).
// Only traffic that leaves the host is seen: Soft-RoCE talking to itself
// loops packets back inside the kernel.

// captures is the provider's capture per network interface.
type captures struct {
	mu      sync.Mutex
	started bool
	byIf    map[string]*capture.Tracer
	status  map[string]verbs.TraceStatus
}

// Capture starts capturing on the network interface of every RDMA
// device, writing every RoCEv2 frame to pcap as well when it is not nil.
// On the interface of an iWARP device it takes the TCP connections to or
// from iwarpPort too (the rdma_cm port: iWARP's connection is a TCP
// connection to it) and decodes their iWARP messages.
// Call it once, before connecting, so the CM exchange is captured too.
// Without CAP_NET_RAW it returns a *capture.NoPermissionError, and the
// devices' TraceStatus say so.
func (p *Provider) Capture(pcap io.Writer, iwarpPort uint16) error {
	infos, err := p.Devices()
	if err != nil {
		return err
	}
	c := &p.captures
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started = true
	c.byIf = map[string]*capture.Tracer{}
	c.status = map[string]verbs.TraceStatus{}
	iwarpOn := map[string]bool{} // an rxe0 and a siw0 may share one interface
	for _, info := range infos {
		for _, ifname := range info.Netdevs {
			iwarpOn[ifname] = iwarpOn[ifname] || info.IsIWARP()
		}
	}
	var first error
	for _, info := range infos {
		for _, ifname := range info.Netdevs {
			if _, done := c.status[ifname]; done {
				continue
			}
			var w io.Writer
			if pcap != nil && len(c.byIf) == 0 {
				w = pcap // one file: the first interface (the tour uses one device)
			}
			t, err := traceOn(ifname, iwarpOn[ifname], iwarpPort, w)
			c.status[ifname] = statusOf(err)
			if err != nil {
				if first == nil {
					first = err
				}
				continue
			}
			c.byIf[ifname] = t
		}
	}
	return first
}

// traceOn starts the capture of one interface: RoCEv2 only, unless an
// iWARP device sits on it.
func traceOn(ifname string, iwarp bool, port uint16, w io.Writer) (*capture.Tracer, error) {
	if iwarp && port != 0 {
		return capture.TraceIWARP(ifname, port, interfaceAddrs(ifname), w)
	}
	return capture.Trace(ifname, interfaceAddrs(ifname), w)
}

func statusOf(err error) verbs.TraceStatus {
	var perm *capture.NoPermissionError
	switch {
	case err == nil:
		return verbs.TraceStatus{State: verbs.TraceCapturing}
	case errors.As(err, &perm):
		return verbs.TraceStatus{State: verbs.TraceNoPermission, Detail: err.Error()}
	}
	return verbs.TraceStatus{State: verbs.TraceUnavailable, Detail: err.Error()}
}

func interfaceAddrs(ifname string) []netip.Addr {
	ifi, err := net.InterfaceByName(ifname)
	if err != nil {
		return nil
	}
	addrs, _ := ifi.Addrs()
	var out []netip.Addr
	for _, a := range addrs {
		if pn, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(pn.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out
}

// StopCapture ends every capture Capture started and returns the first
// error capturing or writing the pcap hit.
func (p *Provider) StopCapture() error {
	c := &p.captures
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for _, t := range c.byIf {
		if err := t.Err(); err != nil && first == nil {
			first = err
		}
		t.Close()
	}
	c.byIf = nil
	return first
}

// tracer is the capture on the device's interface, if one runs.
func (d *device) tracer() (*capture.Tracer, verbs.TraceStatus) {
	c := &d.p.captures
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		return nil, verbs.TraceStatus{State: verbs.TraceUnavailable, Detail: "no capture was started"}
	}
	for _, ifname := range d.Info().Netdevs {
		if t, ok := c.byIf[ifname]; ok {
			return t, c.status[ifname]
		}
		if st, ok := c.status[ifname]; ok {
			return nil, st
		}
	}
	return nil, verbs.TraceStatus{State: verbs.TraceUnavailable, Detail: d.name + " has no network interface to capture on"}
}

// TraceStatus implements verbs.TraceStatusReporter.
func (d *device) TraceStatus() verbs.TraceStatus {
	_, st := d.tracer()
	return st
}

// Packets implements verbs.PacketTracer with what the capture saw.
func (d *device) Packets(after uint64) []verbs.Packet {
	t, _ := d.tracer()
	if t == nil {
		return nil
	}
	var out []verbs.Packet
	for _, s := range t.Frames(after, nil) {
		out = append(out, packetOf(s))
	}
	return out
}

// packetOf is a captured frame as the wire pane shows packets.
func packetOf(s capture.Seen) verbs.Packet {
	if s.IWARP != nil {
		iw := iwarpPacketOf(*s.IWARP)
		return verbs.Packet{Seq: s.Seq, Time: s.Time, Outbound: s.Outbound, PayloadLen: len(s.IWARP.Msg.Payload), IWARP: &iw}
	}
	p := s.Frame.Packet
	v := verbs.Packet{Seq: s.Seq, Time: s.Time, Outbound: s.Outbound, Opcode: uint8(p.BTH.Opcode),
		DestQP: p.BTH.DestQP, PSN: p.BTH.PSN, AckReq: p.BTH.AckReq, ImmDt: p.ImmDt, PayloadLen: len(p.Payload)}
	if p.RETH != nil {
		v.RETH = &verbs.RETH{VA: p.RETH.VA, RKey: p.RETH.RKey, DMALen: p.RETH.DMALen}
	}
	if p.AETH != nil {
		v.AETH = &verbs.AETH{Syndrome: uint8(p.AETH.Syndrome), MSN: p.AETH.MSN}
	}
	if a := p.AtomicETH; a != nil {
		v.AtomicETH = &verbs.AtomicETH{VA: a.VA, RKey: a.RKey, SwapAdd: a.SwapAdd, Compare: a.Compare}
	}
	if a := p.AtomicAckETH; a != nil {
		orig := a.OrigData
		v.AtomicAck = &orig
	}
	if p.DETH != nil && p.BTH.DestQP == 1 {
		if m, err := wire.DecodeMAD(p.Payload); err == nil {
			if msg, err := wire.DecodeCM(m); err == nil {
				v.CM = msg.Name()
			}
		}
	}
	return v
}
