package sim

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Each side of BenchmarkWriteTwoProcesses against a peer that does no
// more than the wire protocol needs, in another process: what the sim's
// requester costs (BenchmarkRequesterToRawResponder) and what its
// responder costs (BenchmarkRawRequesterToResponder), each over the
// same TCP loopback as the TCP copy. The raw requester is the shape of
// the benchmark's own loop (a poster, a writer goroutine, a reader
// goroutine) with nothing behind it; the raw responder discards the
// payload and acknowledges the last PSN whenever bufio runs dry.
// 2026-12-07, µs per WRITE, runs of 1 s (first row before 6c0d816 and
// 13fad33 took the sim's allocations out, three runs; the others after,
// four):
//
//	                         4 KiB       64 KiB
//	sim to sim, before       8.3-8.6     34.6-36.4
//	sim to sim               6.7-8.4     24.4-32.0
//	sim to raw responder     5.7-9.3     17.3-26.4
//	raw requester to sim     5.5-8.3     23.1-31.9
//	raw to raw               5.1-6.6     18.2-25.1
//	TCP copy                 6.3-7.3     22.6-33.7
//
// Before the allocations went, each side cost about 5 µs a 64 KiB
// WRITE over a bare peer; now the spread of one run to the next is
// wider than what either side adds.

// rawResponder answers a sim client's REQ by hand, reads its frames,
// discarding every payload, and ACKs the last PSN it has when bufio runs
// dry, until the client's DREQ or the end of the stream.
func rawResponder(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	fmt.Printf("%s%d\n", procPortPrefix, ln.Addr().(*net.TCPAddr).Port)
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(procWait))
	nc, err := ln.Accept()
	must(t, err)
	defer nc.Close()
	br := bufio.NewReaderSize(nc, connReadBuffer)
	buf := make([]byte, maxFrameBody)
	must(t, readPreamble(br))
	_, body, err := readFrame(br, buf)
	must(t, err)
	req, err := decodeCM(body)
	must(t, err)
	rep := cmMsg{Type: cmREP, QPN: 0x4321, PSN: 0x77, ResponderResources: 1, InitiatorDepth: 1,
		RetryCount: 7, RNRRetryCount: 7, PrivateData: encodeRemote(0x7f0000001000, 0x1234)}
	_, err = nc.Write(append(preamble(), encodeCM(&rep)...))
	must(t, err)
	var last uint32
	unacked := false
	for {
		kind, hdr, n, err := peekFrame(br, buf)
		if err != nil {
			return
		}
		if kind == kindCM && n > 0 && hdr[0] == cmDREQ {
			nc.Write(encodeCM(&cmMsg{Type: cmDREP}))
			return
		}
		if kind == kindRun {
			r, plen, err := decodeRunHeader(hdr[frameHeaderLen:], frameBodyLen(hdr))
			must(t, err)
			br.Discard(n + plen)
			last, unacked = psnAdd(r.firstPSN, r.npkts-1), true
		} else if n > 0 {
			br.Discard(n)
		}
		if unacked && br.Buffered() < frameHeaderLen+runHeaderLen {
			ack := ackItem{ok: true, syn: verbs.SyndromeACK, destQP: req.QPN, psn: last}.packet()
			if _, err := nc.Write(appendPacketHeader(nil, &ack, 0)); err != nil {
				return
			}
			unacked = false
		}
	}
}

func BenchmarkRequesterToRawResponder(b *testing.B) {
	for _, size := range procSizes {
		b.Run(sizeName(size), func(b *testing.B) { writeTwoProcesses(b, "raw", size) })
	}
}

// rawRequester is a connection to a sim server in another process that
// streams WRITEs as run frames by hand.
type rawRequester struct {
	nc          net.Conn
	br          *bufio.Reader
	srvQPN      uint32
	raddr       uint64
	rkey        uint32
	mu          sync.Mutex
	cond        *sync.Cond
	acked       int // WRITEs acknowledged
	npkts, size int
}

// dialRaw connects to the sim server on port as the sim's CM would.
func dialRaw(b *testing.B, port, size int) *rawRequester {
	nc, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	must(b, err)
	req := cmMsg{Type: cmREQ, QPN: rawQPN, PSN: rawPSN, ResponderResources: 1, InitiatorDepth: 1, RetryCount: 7, RNRRetryCount: 7}
	_, err = nc.Write(append(preamble(), encodeCM(&req)...))
	must(b, err)
	r := &rawRequester{nc: nc, br: bufio.NewReaderSize(nc, connReadBuffer), size: size, npkts: (size + 1023) / 1024}
	r.cond = sync.NewCond(&r.mu)
	nc.SetReadDeadline(time.Now().Add(procWait))
	must(b, readPreamble(r.br))
	kind, body, err := readFrame(r.br, make([]byte, maxFrameBody))
	must(b, err)
	rep, err := decodeCM(body)
	if err != nil || kind != kindCM || rep.Type != cmREP {
		b.Fatalf("no REP: kind %d, %v", kind, err)
	}
	nc.SetReadDeadline(time.Time{})
	r.srvQPN = rep.QPN
	r.raddr, r.rkey, _ = decodeRemote(rep.PrivateData)
	_, err = nc.Write(encodeCM(&cmMsg{Type: cmRTU}))
	must(b, err)
	return r
}

// readAcks counts the WRITEs the server's ACKs cover until the stream ends.
func (r *rawRequester) readAcks() {
	buf := make([]byte, maxFrameBody)
	for {
		kind, body, err := readFrame(r.br, buf)
		if err != nil {
			return
		}
		pk, err := decodePacket(body)
		if kind != kindPacket || err != nil {
			continue
		}
		n := (int(psnDiff(pk.PSN, rawPSN)) + 1) / r.npkts
		r.mu.Lock()
		if n > r.acked {
			r.acked = n
			r.cond.Broadcast()
		}
		r.mu.Unlock()
	}
}

// frame is WRITE i's run frame header; the payload follows it.
func (r *rawRequester) frame(i int) []byte {
	slot := i % benchWindow
	run := msgRun{write: true, destQP: r.srvQPN, firstPSN: psnAdd(rawPSN, i*r.npkts), length: r.size, pmtu: 1024,
		npkts: r.npkts, to: r.npkts, remoteAddr: r.raddr + uint64(slot*r.size), rkey: r.rkey}
	return appendRunHeader(nil, &run, 0, r.npkts, r.size)
}

// awaitAcks waits until at least n WRITEs are acknowledged and returns
// how many are.
func (r *rawRequester) awaitAcks(b *testing.B, n int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	stop := time.AfterFunc(procWait, func() { r.mu.Lock(); r.acked = -1; r.cond.Broadcast(); r.mu.Unlock() })
	defer stop.Stop()
	for r.acked >= 0 && r.acked < n {
		r.cond.Wait()
	}
	if r.acked < 0 {
		b.Fatalf("no ACK for %v", procWait)
	}
	return r.acked
}

func BenchmarkRawRequesterToResponder(b *testing.B) {
	for _, size := range procSizes {
		b.Run(sizeName(size), func(b *testing.B) { rawRequesterRun(b, "sim", size) })
	}
}

// BenchmarkRawRequesterToRawResponder is neither side's sim: what the
// benchmark's shape costs by itself.
func BenchmarkRawRequesterToRawResponder(b *testing.B) {
	for _, size := range procSizes {
		b.Run(sizeName(size), func(b *testing.B) { rawRequesterRun(b, "raw", size) })
	}
}

// rawRequesterRun streams b.N WRITEs of size from a raw requester to the
// server the child runs in mode, benchWindow in flight.
func rawRequesterRun(b *testing.B, mode string, size int) {
	r := dialRaw(b, startHelper(b, mode), size)
	b.Cleanup(func() { r.nc.Close() })
	go r.readAcks()
	w := newQueueWriter(r.nc)
	defer w.stop()
	payload := make([]byte, size)
	b.SetBytes(int64(size))
	b.ResetTimer()
	for posted := 0; posted < b.N; {
		acked := r.awaitAcks(b, posted-benchWindow+1)
		for k := min(benchWindow-(posted-acked), b.N-posted); k > 0; k-- {
			w.queue(r.frame(posted), payload)
			posted++
		}
	}
	r.awaitAcks(b, b.N)
	b.StopTimer()
}

// queueWriter is a writer goroutine fed through a queue, as conn's is.
type queueWriter struct {
	mu   sync.Mutex
	cond *sync.Cond
	q    [][]byte
	done bool
}

func newQueueWriter(nc net.Conn) *queueWriter {
	w := &queueWriter{}
	w.cond = sync.NewCond(&w.mu)
	go func() {
		for {
			w.mu.Lock()
			for len(w.q) == 0 && !w.done {
				w.cond.Wait()
			}
			q, done := w.q, w.done
			w.q = nil
			w.mu.Unlock()
			if done {
				return
			}
			if _, err := (*net.Buffers)(&q).WriteTo(nc); err != nil {
				return
			}
		}
	}()
	return w
}

func (w *queueWriter) queue(pieces ...[]byte) {
	w.mu.Lock()
	w.q = append(w.q, pieces...)
	w.cond.Signal()
	w.mu.Unlock()
}

func (w *queueWriter) stop() {
	w.mu.Lock()
	w.done = true
	w.cond.Signal()
	w.mu.Unlock()
}
