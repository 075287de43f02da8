package sim

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Fuzz targets for the rest of what decodes a peer's bytes: the frame
// header on its own, and the three readers that run them over a stream —
// the listener's handshake, the active side's wait for REP/REJ, and an
// established connection's reader (CM messages, packets, the responder).
// Each must end cleanly whatever arrives: the right event or none, no
// panic, and nothing left allocated or running.

func FuzzDecodeFrameHeader(f *testing.F) {
	f.Add([]byte{kindCM, 0, 0, 0, 0, 0, 0, 17})
	f.Add([]byte{kindPacket, 0, 0, 0, 0, 1, 0, 64})
	f.Add([]byte{kindPacket, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{kindDatagram, 0, 0, 0, 0, 0, 0, 18})
	f.Add([]byte{kindImpaired, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{kindRun, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{6, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 1, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		kind, n, err := decodeFrameHeader(b)
		if err != nil {
			if !errors.Is(err, errWire) {
				t.Fatalf("error %v is not a wire error", err)
			}
			return
		}
		if n > maxFrameBody || (kind != kindCM && kind != kindPacket && kind != kindDatagram && kind != kindImpaired && kind != kindRun) {
			t.Fatalf("accepted kind %d length %d", kind, n)
		}
		again := make([]byte, frameHeaderLen)
		putFrameHeader(again, kind, n)
		if !bytes.Equal(again, b) {
			t.Fatalf("round trip %x != %x", again, b)
		}
	})
}

func reqBytes(pd []byte) []byte {
	return append(preamble(), encodeCM(&cmMsg{Type: cmREQ, QPN: 0x99, PSN: 5, ResponderResources: 1, InitiatorDepth: 1, PrivateData: pd})...)
}

// startsWithValidCM reports whether b opens with the preamble and a CM
// frame of type typ that decodes.
func startsWithValidCM(b []byte, typ uint8) bool {
	if len(b) < preambleLen+frameHeaderLen || decodePreamble(b[:preambleLen]) != nil {
		return false
	}
	kind, n, err := decodeFrameHeader(b[preambleLen : preambleLen+frameHeaderLen])
	body := b[preambleLen+frameHeaderLen:]
	if err != nil || kind != kindCM || len(body) < n {
		return false
	}
	m, err := decodeCM(body[:n])
	return err == nil && m.Type == typ
}

func FuzzListenerHandshake(f *testing.F) {
	f.Add(reqBytes([]byte("hello")))
	f.Add(append(reqBytes(nil), 9, 9, 9))
	f.Add(reqBytes(nil)[:20])
	f.Add([]byte("GET / HTTP/1.0\r\n\r\n"))
	f.Add(append(preamble(), encodeCM(&cmMsg{Type: cmDREQ})...))
	f.Fuzz(func(t *testing.T, in []byte) {
		srv := &side{p: New(Options{CMTimeout: time.Second})}
		var err error
		srv.ch, err = srv.p.CreateEventChannel()
		must(t, err)
		srv.lid, err = srv.ch.CreateID(verbs.PSTCP)
		must(t, err)
		must(t, srv.lid.BindAddr(netip.AddrPortFrom(loopback, 0)))
		must(t, srv.lid.Listen(1))
		nc, err := net.Dial("tcp", srv.lid.LocalAddr().String())
		must(t, err)
		nc.Write(in)
		nc.(*net.TCPConn).CloseWrite()
		nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		answer, err := io.ReadAll(nc) // the listener drops us, or answers and the child's reader ends
		if err != nil {
			t.Fatalf("the listener neither answered nor closed: %v", err)
		}
		nc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		ev, evErr := srv.ch.GetEvent(ctx)
		cancel()
		valid := startsWithValidCM(in, cmREQ)
		switch {
		case evErr == nil && ev.Type == verbs.EventConnectRequest:
			if !valid || !bytes.Equal(answer[:min(len(answer), preambleLen)], preamble()) {
				t.Fatalf("CONNECT_REQUEST from %x (answer %x)", in, answer)
			}
			srv.id = ev.ID
		case evErr == nil:
			t.Fatalf("unexpected event %s", ev.Type)
		case valid:
			t.Fatalf("a valid REQ raised no CONNECT_REQUEST: %x", in)
		case len(answer) != 0:
			t.Fatalf("a stray peer got an answer: %x", answer)
		}
		teardown(t, srv)
	})
}

// FuzzConnectReply: a server that answers a REQ with arbitrary bytes and
// closes. The client gets exactly one of ESTABLISHED (a valid REP),
// REJECTED (a valid REJ), or a connect error / unreachable (a valid REP
// too, when the close wins the race with the fetch).
func FuzzConnectReply(f *testing.F) {
	f.Add(append(preamble(), encodeCM(&cmMsg{Type: cmREP, QPN: 0x42, PSN: 1, PrivateData: []byte("x")})...))
	f.Add(append(preamble(), encodeCM(&cmMsg{Type: cmREJ, Reason: 28})...))
	f.Add(append(preamble(), encodeCM(&cmMsg{Type: cmRTU})...))
	f.Add(preamble())
	f.Add([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		must(t, err)
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write(in)
			c.(*net.TCPConn).CloseWrite()
			io.Copy(io.Discard, c)
			c.Close()
		}()
		cli := clientTo(t, New(Options{CMTimeout: 300 * time.Millisecond}), netip.MustParseAddrPort(ln.Addr().String()))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ev, err := cli.ch.GetEvent(ctx)
		cancel()
		if err != nil {
			t.Fatalf("no event: %v", err)
		}
		switch ev.Type {
		case verbs.EventEstablished:
			if !startsWithValidCM(in, cmREP) {
				t.Fatalf("ESTABLISHED from %x", in)
			}
		case verbs.EventRejected:
			if !startsWithValidCM(in, cmREJ) {
				t.Fatalf("REJECTED from %x", in)
			}
		case verbs.EventConnectError, verbs.EventUnreachable:
			// A valid REP may still end in CONNECT_ERROR: this server
			// closes right after it, and the RTU goes only when the
			// event is fetched (as with librdmacm), by which time the
			// connection may be gone.
			if (startsWithValidCM(in, cmREP) && ev.Type != verbs.EventConnectError) || startsWithValidCM(in, cmREJ) {
				t.Fatalf("%s from a valid answer %x", ev.Type, in)
			}
		default:
			t.Fatalf("unexpected event %s", ev.Type)
		}
		teardown(t, cli)
	})
}

// FuzzEstablishedStream: arbitrary bytes on an established connection,
// after the handshake. The MR without remote access never changes.
func FuzzEstablishedStream(f *testing.F) {
	for _, s := range seedPackets() {
		h := make([]byte, frameHeaderLen)
		putFrameHeader(h, kindPacket, len(s))
		f.Add(append(h, s...))
	}
	f.Add(encodeCM(&cmMsg{Type: cmDREQ}))
	f.Add(encodeCM(&cmMsg{Type: cmREQ, PrivateData: []byte("again")}))
	f.Add(binary.BigEndian.AppendUint32([]byte{kindPacket, 0, 0, 0}, 1<<31))
	for _, s := range seedRuns() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		rs := newRawServer(t)
		// Aim packets at the server's QP, whatever the fuzzer put there.
		fixQPNs(in, rs.peer.srvQPN)
		rs.peer.write(t, in)
		rs.peer.closeWrite()
		if _, _, end := rs.peer.readAll(5 * time.Second); !errors.Is(end, io.EOF) && !errors.Is(end, errWire) {
			t.Fatalf("the server did not close the connection after the peer's EOF: %v", end)
		}
		if b, _ := rs.guard.Read(0, 256); !bytes.Equal(b, make([]byte, 256)) {
			t.Fatal("an MR without remote access changed")
		}
		rs.finish(t)
	})
}

// fixQPNs rewrites the destination QP of every well-framed packet in b.
func fixQPNs(b []byte, qpn uint32) {
	for len(b) >= frameHeaderLen {
		kind, n, err := decodeFrameHeader(b[:frameHeaderLen])
		if err != nil || len(b) < frameHeaderLen+n {
			return
		}
		if kind == kindPacket && n >= bthLen {
			binary.BigEndian.PutUint32(b[frameHeaderLen+2:], qpn)
		}
		if kind == kindRun && n >= runHeaderLen {
			binary.BigEndian.PutUint32(b[frameHeaderLen:], qpn)
		}
		b = b[frameHeaderLen+n:]
	}
}

// seedRuns are run frames: whole, cut short, and ones no sender makes.
func seedRuns() [][]byte {
	r := msgRun{write: true, firstPSN: rawPSN, npkts: 2, to: 2, pmtu: 1024, length: 1500, remoteAddr: 1 << 20, rkey: 0x100}
	whole := append(appendRunHeader(nil, &r, 0, 2, 1500), make([]byte, 1500)...)
	bad := r
	bad.npkts, bad.to = 3, 3
	return [][]byte{
		whole,
		whole[:frameHeaderLen+runHeaderLen+700],
		whole[:frameHeaderLen+10],
		append(appendRunHeader(nil, &bad, 0, 3, 1500), make([]byte, 1500)...),
		append(appendRunHeader(nil, &r, 1, 2, 476), make([]byte, 476)...),
	}
}
