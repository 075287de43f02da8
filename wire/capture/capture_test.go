package capture

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/wire"
)

// TestCaptureLoopback sends UDP datagrams on lo — one to port 4791
// holding an RC ACK, one to another port — and checks that the capture
// yields exactly the RoCEv2 one, decoded.
func TestCaptureLoopback(t *testing.T) {
	c, err := Open("lo")
	var perm *NoPermissionError
	if errors.As(err, &perm) {
		t.Skipf("no CAP_NET_RAW here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	ack := wire.Packet{BTH: wire.BTH{Opcode: wire.RCAcknowledge, PKey: 0xffff, DestQP: 0x11, PSN: 7},
		AETH: &wire.AETH{Syndrome: wire.SyndromeACK, MSN: 1}}
	pkt, err := ack.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	send := func(port int, b []byte) {
		conn, err := net.DialUDP("udp4", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	send(4790, []byte("not RoCE"))
	send(wire.RoCEv2Port, pkt)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := c.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Err != nil {
		t.Fatalf("captured frame does not decode: %v", got.Err)
	}
	p := got.Frame.Packet
	if p.BTH.Opcode != wire.RCAcknowledge || p.BTH.DestQP != 0x11 || p.AETH.MSN != 1 {
		t.Errorf("captured %s", p.Summary())
	}
	// lo delivers each datagram twice to a packet socket (out and in);
	// whatever comes next must be RoCE as well, never port 4790.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel2()
	for {
		more, err := c.Next(ctx2)
		if err != nil {
			break
		}
		if more.Err != nil {
			t.Errorf("the filter let through a frame that is not RoCEv2: %v", more.Err)
		}
	}
}

func TestNoPermissionExplains(t *testing.T) {
	err := &NoPermissionError{Interface: "eth0", Err: os.ErrPermission}
	if !errors.Is(err, os.ErrPermission) {
		t.Error("NoPermissionError does not unwrap")
	}
	for _, want := range []string{"CAP_NET_RAW", "setcap cap_net_raw+ep", "eth0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err.Error(), want)
		}
	}
}
