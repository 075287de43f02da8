// Package capture reads the RoCEv2 packets an RDMA device puts on its
// network interface, as tcpdump would, so the learner sees the real wire:
// an AF_PACKET socket on the device's netdev with a BPF filter for UDP
// port 4791, each frame decoded by package wire. On an iWARP device's
// interface (OpenIWARP, TraceIWARP) it takes the TCP segments of the
// rdma_cm port too, and the Tracer decodes their iWARP messages.
//
// It needs CAP_NET_RAW. On one host, Soft-RoCE loops its packets back
// inside the kernel and none reaches the interface: only a connection to
// another host can be captured.
package capture

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/mdlayher/packet"
	"golang.org/x/net/bpf"

	"github.com/rdmatour/rdmatour/wire"
)

// ethPAll is ETH_P_ALL: every protocol (packet.Listen converts it to
// network byte order itself).
const ethPAll = 0x0003

// Capture is an open AF_PACKET socket on one interface that yields
// RoCEv2 frames, and with OpenIWARP the TCP segments of an iWARP port.
type Capture struct {
	ifname string
	conn   *packet.Conn
	// tcpPort is the iWARP connections' TCP port; 0: RoCEv2 only.
	tcpPort uint16
	buf     []byte
}

// NoPermissionError says the process may not open a packet socket.
type NoPermissionError struct {
	Interface string
	Err       error
}

func (e *NoPermissionError) Error() string {
	return fmt.Sprintf("capturing on %s needs CAP_NET_RAW: run as root, or once: sudo setcap cap_net_raw+ep %s",
		e.Interface, executable())
}

func (e *NoPermissionError) Unwrap() error { return e.Err }

func executable() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return "rdmatour"
}

// Open starts capturing RoCEv2 frames on the interface.
func Open(ifname string) (*Capture, error) {
	filter, err := roceFilter()
	if err != nil {
		return nil, err
	}
	return open(ifname, filter, 0, 1<<16)
}

// OpenIWARP starts capturing on the interface the RoCEv2 frames and the
// TCP segments to or from port: an iWARP device's traffic is the TCP
// connection rdma_cm makes to the server's port (siw listens on the
// rdma_cm id's own address: siw_cm.c siw_create_listen), and the same
// interface may carry a RoCE device too.
func OpenIWARP(ifname string, port uint16) (*Capture, error) {
	filter, err := roceOrTCPFilter(port)
	if err != nil {
		return nil, err
	}
	// Outbound, the socket sees TCP segments before the NIC cuts them to
	// the MSS (GSO): up to 64 KiB of IP and its Ethernet header.
	return open(ifname, filter, port, 1<<17)
}

func open(ifname string, filter []bpf.RawInstruction, port uint16, bufSize int) (*Capture, error) {
	ifi, err := net.InterfaceByName(ifname)
	if err != nil {
		return nil, fmt.Errorf("capture: interface %s: %w", ifname, err)
	}
	conn, err := packet.Listen(ifi, packet.Raw, ethPAll, &packet.Config{Filter: filter})
	if err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
			return nil, &NoPermissionError{Interface: ifname, Err: err}
		}
		return nil, fmt.Errorf("capture: %s: %w", ifname, err)
	}
	return &Capture{ifname: ifname, conn: conn, tcpPort: port, buf: make([]byte, bufSize)}, nil
}

// roceFilter accepts IPv4 UDP datagrams to port 4791 that are not
// fragments, as `tcpdump udp dst port 4791` would.
func roceFilter() ([]bpf.RawInstruction, error) {
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 12, Size: 2}, // EtherType
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 0x0800, SkipTrue: 8},
		bpf.LoadAbsolute{Off: 23, Size: 1}, // IP protocol
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 17, SkipTrue: 6},
		bpf.LoadAbsolute{Off: 20, Size: 2}, // flags + fragment offset
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0x1fff, SkipTrue: 4},
		bpf.LoadMemShift{Off: 14},              // X = IP header length
		bpf.LoadIndirect{Off: 14 + 2, Size: 2}, // UDP destination port
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: wire.RoCEv2Port, SkipFalse: 1},
		bpf.RetConstant{Val: 0x40000},
		bpf.RetConstant{Val: 0},
	}
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("capture: BPF: %w", err)
	}
	return raw, nil
}

// roceOrTCPFilter accepts what roceFilter does and the IPv4 TCP
// segments from or to port that are not fragments, as `tcpdump udp dst
// port 4791 or tcp port PORT` would.
func roceOrTCPFilter(port uint16) ([]bpf.RawInstruction, error) {
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 12, Size: 2}, // 0: EtherType
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 0x0800, SkipTrue: 13},
		bpf.LoadAbsolute{Off: 20, Size: 2}, // 2: flags + fragment offset
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0x1fff, SkipTrue: 11},
		bpf.LoadMemShift{Off: 14},          // 4: X = IP header length
		bpf.LoadAbsolute{Off: 23, Size: 1}, // 5: IP protocol
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 6, SkipTrue: 3},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: 17, SkipTrue: 7},
		bpf.LoadIndirect{Off: 14 + 2, Size: 2}, // 8: UDP destination port
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: wire.RoCEv2Port, SkipTrue: 4, SkipFalse: 5},
		bpf.LoadIndirect{Off: 14, Size: 2}, // 10: TCP source port
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(port), SkipTrue: 2},
		bpf.LoadIndirect{Off: 14 + 2, Size: 2}, // 12: TCP destination port
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(port), SkipFalse: 1},
		bpf.RetConstant{Val: 0x40000}, // 14: accept
		bpf.RetConstant{Val: 0},       // 15: drop
	}
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("capture: BPF: %w", err)
	}
	return raw, nil
}

// Captured is one frame read from the interface.
type Captured struct {
	Time  time.Time
	Raw   []byte
	Frame wire.Frame
	// TCP is set instead of Frame for a TCP segment (OpenIWARP).
	TCP *wire.TCPSegment
	// Err is set when the frame is UDP 4791 or TCP but does not decode.
	Err error
}

// Next waits for the next RoCEv2 frame, until ctx ends.
func (c *Capture) Next(ctx context.Context) (Captured, error) {
	for {
		if err := ctx.Err(); err != nil {
			return Captured{}, err
		}
		// A short deadline lets ctx cancel the wait.
		got, err := c.within(200 * time.Millisecond)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			continue
		}
		return got, err
	}
}

// within reads the next frame, waiting at most d; the error is a
// net.Error with Timeout() when none came.
func (c *Capture) within(d time.Duration) (Captured, error) {
	if err := c.conn.SetReadDeadline(time.Now().Add(d)); err != nil {
		return Captured{}, fmt.Errorf("capture: %w", err)
	}
	buf := c.buf
	n, _, err := c.conn.ReadFrom(buf)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return Captured{}, err
		}
		return Captured{}, fmt.Errorf("capture: %s: %w", c.ifname, err)
	}
	raw := append([]byte(nil), buf[:n]...)
	if c.tcpPort != 0 {
		seg, err := wire.DecodeTCPSegment(raw)
		if err == nil {
			return Captured{Time: time.Now(), Raw: raw, TCP: &seg}, nil
		}
		if !errors.Is(err, wire.ErrNotTCP) {
			return Captured{Time: time.Now(), Raw: raw, Err: err}, nil
		}
	}
	fr, err := wire.DecodeFrame(raw)
	return Captured{Time: time.Now(), Raw: raw, Frame: fr, Err: err}, nil
}

// Close stops capturing.
func (c *Capture) Close() error { return c.conn.Close() }
