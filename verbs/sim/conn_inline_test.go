package sim

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// socketPair is a connected pair of stream sockets whose first end sends
// into a buffer of sndbuf bytes.
func socketPair(t *testing.T, sndbuf int) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	must(t, err)
	must(t, syscall.SetsockoptInt(fds[0], syscall.SOL_SOCKET, syscall.SO_SNDBUF, sndbuf))
	var conns [2]net.Conn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		conns[i], err = net.FileConn(f)
		f.Close()
		must(t, err)
	}
	return conns[0], conns[1]
}

// When the socket is full, the reader's write leaves what it could not
// write to the writer goroutine, which writes it first: the peer gets
// every byte, in order.
func TestInlineFlushLeavesTheRestToTheWriter(t *testing.T) {
	a, b := socketPair(t, 4096)
	defer b.Close()
	p := New(Options{})
	c := newConn(p, a, connIn{})
	// Full for any write: until a 1 KiB write, then a 64-byte one, then a
	// one-byte one finds no room (each takes a buffer of its own size).
	var filler []byte
	w := newSockWriter(c.sock.raw)
	for _, size := range []int{1024, 64, 1} {
		chunk := bytes.Repeat([]byte{0xee}, size)
		for {
			n, err := w.tryWrite(chunk)
			filler = append(filler, chunk[:n]...)
			if errors.Is(err, syscall.EAGAIN) {
				break
			}
			must(t, err)
		}
	}
	// A burst's answers: NAKs to distinct QPs, which nothing merges.
	const answers = 300
	c.holdWriter()
	for i := range answers {
		c.send(outItem{pkt: &packet{Opcode: verbs.OpAcknowledge, DestQP: uint32(i + 1), PSN: uint32(i),
			HasAETH: true, AETH: verbs.AETH{Syndrome: verbs.SyndromeNAKPSNSeqErr}}})
	}
	c.flushInline()
	// Handed over: still queued or carried, or the writer goroutine has
	// taken it already and waits in its write, holding the write token
	// (b reads nothing yet, so that write cannot end).
	c.mu.Lock()
	handed := c.carry != nil || len(c.q) > 0 || c.writing
	c.mu.Unlock()
	if !handed {
		t.Fatal("a full socket took the burst's answers at once")
	}

	b.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, len(filler))
	if _, err := io.ReadFull(b, got); err != nil || !bytes.Equal(got, filler) {
		t.Fatalf("the filler came back altered (%v)", err)
	}
	buf := make([]byte, maxFrameBody)
	for i := range answers {
		kind, body, err := readFrame(b, buf)
		if err != nil || kind != kindPacket {
			t.Fatalf("answer %d: kind %d, %v", i, kind, err)
		}
		pk, err := decodePacket(body)
		must(t, err)
		if pk.DestQP != uint32(i+1) || pk.PSN != uint32(i) {
			t.Fatalf("answer %d is for QP %d PSN %d: out of order", i, pk.DestQP, pk.PSN)
		}
	}
	c.abort()
	if !p.Quiesce(5 * time.Second) {
		t.Fatal("the writer goroutine is still running")
	}
}
