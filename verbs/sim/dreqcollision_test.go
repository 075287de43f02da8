package sim

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/wire"
)

// TestSimDREQCollisionMatchesRxe forces a DREQ collision (both sides
// call rdma_disconnect before either has the other's DREQ) and compares
// the server's capture with what tcpdump saw on Soft-RoCE between two
// guests in the same collision (scripts/dreqcollision.sh): a DREQ each
// way, then a DREP from each side that destroys its id with the peer's
// DREQ unanswered, and none from a side that had the peer's DREP first.
// A proxy on the wire between the two NICs holds each direction while
// the test orders the events, so the run is the same every time.
func TestSimDREQCollisionMatchesRxe(t *testing.T) {
	for _, tc := range []struct {
		capture string
		// clientHasDREP: the server's DREP reaches the client before the
		// client destroys its id (ib_cm's timewait: no DREP of its own).
		clientHasDREP bool
	}{
		{"dreq-collision", false},
		{"dreq-collision-timewait", true},
	} {
		t.Run(tc.capture, func(t *testing.T) {
			var pcap lockedBuffer
			srv, cli, wire := collidingPair(t, &pcap)
			// Both DREQs leave before either arrives: the server's first
			// (tcpdump ran on the server's host).
			must(t, srv.id.Disconnect())
			wire.waitHeld(toClient)
			must(t, cli.id.Disconnect())
			wire.waitHeld(toServer)
			wire.open(toServer)
			waitEvent(t, srv.ch, verbs.EventDisconnected) // the client's DREQ, in the collision
			wire.open(toClient)
			waitEvent(t, cli.ch, verbs.EventDisconnected) // the server's DREQ
			if !tc.clientHasDREP {
				wire.hold(toClient) // the server's DREP stays on the wire
			}
			destroy(t, srv) // its DREP: the client's DREQ is unanswered
			if tc.clientHasDREP {
				waitDREPArrived(t, cli.id.(*cmID))
			} else {
				wire.waitHeld(toClient) // the DREP is out, before the client's
			}
			destroy(t, cli)
			wire.open(toClient)
			want := collisionOfFile(t, tc.capture)
			got := collisionOf(t, pcap.waitFrames(t, strings.Count(want, " / ")+1))
			wire.close()
			if got != want {
				t.Errorf("simulated NIC's wire:\n got %s\nSoft-RoCE's:\n     %s", got, want)
			}
		})
	}
}

// lockedBuffer is a pcap the NIC writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// waitFrames returns the pcap once it holds n frames (the last may still
// be on its way when both ids are gone), or as it is after 5 s.
func (l *lockedBuffer) waitFrames(t *testing.T, n int) []byte {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l.mu.Lock()
		b := bytes.Clone(l.b.Bytes())
		l.mu.Unlock()
		frames, err := wire.ReadPcap(bytes.NewReader(b))
		if (err == nil && len(frames) >= n) || time.Now().After(deadline) {
			return b
		}
		time.Sleep(time.Millisecond)
	}
}

// collidingPair is a connected pair whose TCP connection runs through a
// heldWire, both directions held; the server's NIC writes the pcap.
func collidingPair(t *testing.T, pcap io.Writer) (srv, cli *side, w *heldWire) {
	t.Helper()
	cfg := pairCfg{noCleanup: true, serverPcap: pcap, connect: verbs.ConnParam{RetryCount: 7, RNRRetryCount: 7}}
	cfg.via = func(server netip.AddrPort) netip.AddrPort {
		w = newHeldWire(t, server)
		return w.addr()
	}
	srv, cli = connectPair(t, cfg)
	w.hold(toServer)
	w.hold(toClient)
	return srv, cli, w
}

// destroy tears one side down: QP, CQ, PD, id (its farewell), channel.
func destroy(t *testing.T, s *side) {
	t.Helper()
	must(t, s.id.DestroyQP())
	must(t, s.cq.Destroy())
	must(t, s.pd.Dealloc())
	must(t, s.id.Destroy())
	if s.lid != nil {
		must(t, s.lid.Destroy())
	}
	must(t, s.ch.Destroy())
}

// waitDREPArrived waits until id's NIC has taken the peer's DREP (the
// DREP it owed is no longer owed).
func waitDREPArrived(t *testing.T, id *cmID) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		id.mu.Lock()
		owed := id.drepOwed
		id.mu.Unlock()
		if !owed {
			return
		}
	}
	t.Fatal("the server's DREP never reached the client")
}

// collisionOfFile is collisionOf for a capture in wire/testdata.
func collisionOfFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "wire", "testdata", "rxe-two-hosts-"+name+".pcap"))
	if err != nil {
		t.Fatal(err)
	}
	return collisionOf(t, b)
}

// collisionOf is a capture's packet kinds, with which DREQ each DREP
// answers (its transaction ID is the DREQ's): "DREP>1" is the answer to
// the capture's first DREQ.
func collisionOf(t *testing.T, pcap []byte) string {
	t.Helper()
	frames, err := wire.ReadPcap(bytes.NewReader(pcap))
	if err != nil {
		t.Fatal(err)
	}
	var seq []string
	var dreqs []uint64
	for i, b := range frames {
		f, err := wire.DecodeFrame(b)
		if err != nil {
			t.Fatalf("frame %d: %v", i+1, err)
		}
		kind := wire.Kind(f.Packet)
		if kind == "CM DREQ" || kind == "CM DREP" {
			m, err := wire.DecodeMAD(f.Packet.Payload)
			if err != nil {
				t.Fatalf("frame %d: %v", i+1, err)
			}
			if kind == "CM DREQ" {
				dreqs = append(dreqs, m.TransactionID)
			} else {
				kind += fmt.Sprintf(">%d", slices.Index(dreqs, m.TransactionID)+1)
			}
		}
		seq = append(seq, kind)
	}
	return strings.Join(seq, " / ")
}

// A heldWire is a TCP proxy between the client's NIC and the server's
// that holds either direction on request: what is sent meanwhile waits
// on the wire, in order, until the direction opens.
type heldWire struct {
	t      *testing.T
	ln     net.Listener
	server netip.AddrPort
	gates  [2]*gate
	wg     sync.WaitGroup
	conns  []net.Conn
	mu     sync.Mutex
}

// The directions of a heldWire.
const (
	toServer = 0
	toClient = 1
)

func newHeldWire(t *testing.T, server netip.AddrPort) *heldWire {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	w := &heldWire{t: t, ln: ln, server: server, gates: [2]*gate{newGate(), newGate()}}
	w.wg.Add(1)
	go w.serve()
	t.Cleanup(w.close)
	return w
}

func (w *heldWire) addr() netip.AddrPort { return w.ln.Addr().(*net.TCPAddr).AddrPort() }

// serve proxies the one connection the client makes.
func (w *heldWire) serve() {
	defer w.wg.Done()
	c, err := w.ln.Accept()
	if err != nil {
		return
	}
	s, err := net.Dial("tcp", w.server.String())
	if err != nil {
		c.Close()
		return
	}
	w.mu.Lock()
	w.conns = append(w.conns, c, s)
	w.mu.Unlock()
	w.wg.Add(2)
	go w.pipe(s, c, w.gates[toServer])
	go w.pipe(c, s, w.gates[toClient])
}

// pipe copies src to dst, each chunk once g is open.
func (w *heldWire) pipe(dst, src net.Conn, g *gate) {
	defer w.wg.Done()
	defer dst.(*net.TCPConn).CloseWrite()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			g.wait() // counts the chunk as held while the gate is shut
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (w *heldWire) hold(dir int) { w.gates[dir].set(false) }

// waitHeld waits until something sent in direction dir is held.
func (w *heldWire) waitHeld(dir int) {
	g := w.gates[dir]
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.held == 0 {
		g.cond.Wait()
	}
}
func (w *heldWire) open(dir int) { w.gates[dir].set(true) }

// close opens both directions and waits for the proxy to end.
func (w *heldWire) close() {
	w.open(toServer)
	w.open(toClient)
	w.ln.Close()
	w.mu.Lock()
	for _, c := range w.conns {
		c.SetDeadline(time.Now().Add(2 * time.Second))
	}
	w.mu.Unlock()
	w.wg.Wait()
}

// gate is an open-or-shut condition that pipes wait on.
type gate struct {
	mu   sync.Mutex
	cond *sync.Cond
	open bool
	held int // chunks waiting for the gate to open
}

func newGate() *gate {
	g := &gate{open: true}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *gate) set(open bool) {
	g.mu.Lock()
	g.open = open
	g.cond.Broadcast()
	g.mu.Unlock()
}

func (g *gate) wait() {
	g.mu.Lock()
	if !g.open {
		g.held++
		g.cond.Broadcast()
		for !g.open {
			g.cond.Wait()
		}
		g.held--
	}
	g.mu.Unlock()
}
