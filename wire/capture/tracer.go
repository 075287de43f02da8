package capture

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/rdmatour/rdmatour/wire"
)

// Seen is a captured frame with its place in the trace and its direction
// from this host's point of view, or one iWARP message decoded from the
// TCP segments captured (IWARP set; Captured holds only the time of the
// segment that completed it).
type Seen struct {
	Seq      uint64
	Outbound bool
	Captured
	IWARP *wire.IWARPEvent
}

// Tracer captures in the background and keeps the recent RoCEv2 frames
// of one host, optionally writing every one of them to a pcap file.
type Tracer struct {
	local  []netip.Addr
	cap    *Capture
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	frames []Seen
	seq    uint64
	pcap   *wire.PcapWriter
	err    error
	// flows decodes the TCP segments of a TraceIWARP capture.
	flows wire.IWARPFlows
}

// maxFrames bounds what a tracer keeps for the wire pane.
const maxFrames = 500

// Trace starts capturing on ifname; local are this host's addresses on it
// (frames from them are outbound). If pcapOut is not nil every RoCEv2
// frame is written to it as well.
func Trace(ifname string, local []netip.Addr, pcapOut io.Writer) (*Tracer, error) {
	c, err := Open(ifname)
	if err != nil {
		return nil, err
	}
	return trace(c, local, pcapOut)
}

// TraceIWARP is Trace for an interface an iWARP device sits on: it
// captures the TCP connections to or from port as well (every frame of
// them goes to pcapOut), and keeps the iWARP messages each direction
// carries, decoded in sequence order.
func TraceIWARP(ifname string, port uint16, local []netip.Addr, pcapOut io.Writer) (*Tracer, error) {
	c, err := OpenIWARP(ifname, port)
	if err != nil {
		return nil, err
	}
	return trace(c, local, pcapOut)
}

func trace(c *Capture, local []netip.Addr, pcapOut io.Writer) (*Tracer, error) {
	var err error
	t := &Tracer{local: local, cap: c, done: make(chan struct{})}
	if pcapOut != nil {
		if t.pcap, err = wire.NewPcapWriter(pcapOut); err != nil {
			c.Close()
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	go t.run(ctx)
	return t, nil
}

func (t *Tracer) run(ctx context.Context) {
	defer close(t.done)
	for {
		got, err := t.cap.Next(ctx)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.mu.Lock()
				t.err = err
				t.mu.Unlock()
			}
			return
		}
		t.add(got)
	}
}

func (t *Tracer) add(got Captured) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pcap != nil && t.err == nil {
		t.err = t.pcap.WriteFrame(got.Time, got.Raw)
	}
	if got.TCP != nil {
		t.addIWARP(got.Time, t.flows.Segment(*got.TCP))
		return
	}
	t.keep(Seen{Outbound: got.Err == nil && slices.Contains(t.local, got.Frame.Src), Captured: got})
}

// addIWARP keeps the messages a TCP segment completed, each an entry.
// Called with t.mu held.
func (t *Tracer) addIWARP(at time.Time, evs []wire.IWARPEvent) {
	for i := range evs {
		e := evs[i]
		t.keep(Seen{Outbound: slices.Contains(t.local, e.From.Addr()), Captured: Captured{Time: at}, IWARP: &e})
	}
}

// keep numbers s and keeps it among the last maxFrames. Called with t.mu
// held.
func (t *Tracer) keep(s Seen) {
	t.seq++
	s.Seq = t.seq
	t.frames = append(t.frames, s)
	if len(t.frames) > maxFrames {
		t.frames = append(t.frames[:0:0], t.frames[len(t.frames)-maxFrames:]...)
	}
}

// Frames returns the kept frames with Seq > after that match, oldest
// first (match nil: all, the iWARP messages among them).
func (t *Tracer) Frames(after uint64, match func(wire.Frame) bool) []Seen {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Seen
	for _, s := range t.frames {
		if s.Seq > after && s.Err == nil && (match == nil || (s.IWARP == nil && match(s.Frame))) {
			out = append(out, s)
		}
	}
	return out
}

// Err is the first error the capture or the pcap writer hit, if any.
func (t *Tracer) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Close stops the capture and waits for the reader to finish.
// Frames the socket already holds are read first: the kernel queues a
// frame for the packet socket before the RDMA device handles it, so a
// tour that ends right after its last packet arrives (the ud tour's
// server polls the datagram and tears down) still has it in the pcap.
func (t *Tracer) Close() error {
	t.cancel()
	<-t.done
	for {
		got, err := t.cap.within(drainWait)
		if err != nil {
			break
		}
		t.add(got)
	}
	t.mu.Lock()
	t.addIWARP(time.Now(), t.flows.End()) // a hole never filled, a frame cut off
	t.mu.Unlock()
	return t.cap.Close()
}

// drainWait is how long Close waits for one more queued frame: queued
// frames come at once, so a short wait only ends the drain.
const drainWait = 20 * time.Millisecond

// Between matches the frames one connection exchanges: those between the
// two addresses whose destination QP is one of qpns, and the CM MADs
// between the two addresses (QP1).
func Between(a, b netip.Addr, qpns ...uint32) func(wire.Frame) bool {
	return func(f wire.Frame) bool {
		if !(f.Src == a && f.Dst == b) && !(f.Src == b && f.Dst == a) {
			return false
		}
		if f.Packet.BTH.DestQP == 1 {
			return true
		}
		for _, q := range qpns {
			if f.Packet.BTH.DestQP == q {
				return true
			}
		}
		return false
	}
}
