package sim

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// rawPeer speaks the sim's wire protocol by hand, as a hostile or buggy
// peer would: it connects to a sim server, completes the CM handshake and
// then sends whatever frames a test gives it.
type rawPeer struct {
	nc     net.Conn
	br     *bufio.Reader
	buf    []byte
	qpn    uint32 // the raw side's QPN (made up)
	psn    uint32 // next PSN the raw side sends
	srvQPN uint32
	srvPSN uint32 // next PSN the server's requester uses
}

// rawServer is a sim server with a connected raw client, a remotely
// writable MR (target) and one RECV posted.
type rawServer struct {
	srv    *side
	target verbs.MR
	guard  verbs.MR // no remote access
	recv   verbs.MR
	peer   *rawPeer
}

const rawQPN, rawPSN = 0x1234, 0x100

func newRawServer(t testing.TB) *rawServer { t.Helper(); return newRawServerRetry(t, 7) }

// newRawServerRetry is newRawServer whose QP has retry_cnt retry.
func newRawServerRetry(t testing.TB, retry uint8) *rawServer {
	t.Helper()
	cfg := pairCfg{cqe: 64, caps: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}}
	srv := &side{p: New(Options{})}
	var err error
	srv.ch, err = srv.p.CreateEventChannel()
	must(t, err)
	srv.lid, err = srv.ch.CreateID(verbs.PSTCP)
	must(t, err)
	must(t, srv.lid.BindAddr(netip.AddrPortFrom(loopback, 0)))
	must(t, srv.lid.Listen(1))

	nc, err := net.Dial("tcp", srv.lid.LocalAddr().String())
	must(t, err)
	rp := &rawPeer{nc: nc, br: bufio.NewReader(nc), buf: make([]byte, maxFrameBody), qpn: rawQPN, psn: rawPSN}
	req := cmMsg{Type: cmREQ, QPN: rawQPN, PSN: rawPSN, ResponderResources: 1, InitiatorDepth: 1, RetryCount: 7, RNRRetryCount: 7}
	rp.write(t, append(preamble(), encodeCM(&req)...))

	ev := waitEvent(t, srv.ch, verbs.EventConnectRequest)
	srv.id = ev.ID
	srv.setupVerbs(t, cfg)
	rs := &rawServer{srv: srv, peer: rp}
	rs.target = srv.regMR(t, 256, verbs.AccessLocalWrite|verbs.AccessRemoteWrite|verbs.AccessRemoteRead)
	rs.guard = srv.regMR(t, 256, verbs.AccessLocalWrite)
	rs.recv = srv.regMR(t, 64, verbs.AccessLocalWrite)
	must(t, srv.qp.PostRecv(verbs.RecvWR{WRID: 1, SGList: sge(rs.recv, 0, 64)}))
	must(t, srv.id.Accept(verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1, RetryCount: retry, RNRRetryCount: 7}))

	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	must(t, readPreamble(rp.br))
	m := rp.readCM(t)
	if m.Type != cmREP {
		t.Fatalf("got CM %s, want REP", cmNames[m.Type])
	}
	rp.srvQPN, rp.srvPSN = m.QPN, m.PSN
	rp.write(t, encodeCM(&cmMsg{Type: cmRTU}))
	waitEvent(t, srv.ch, verbs.EventEstablished)
	return rs
}

func (r *rawPeer) write(t testing.TB, b []byte) {
	t.Helper()
	if _, err := r.nc.Write(b); err != nil {
		t.Fatal(err)
	}
}

// frame encodes pk as a frame addressed to the server's QP.
func (r *rawPeer) frame(pk packet) []byte {
	return append(appendPacketHeader(nil, &pk, len(pk.Payload)), pk.Payload...)
}

// next is pk with the next PSN (consumed) and the server's QPN.
func (r *rawPeer) next(pk packet) packet {
	pk.DestQP, pk.PSN = r.srvQPN, r.psn
	r.psn = psnAdd(r.psn, 1)
	return pk
}

func (r *rawPeer) readCM(t testing.TB) cmMsg {
	t.Helper()
	kind, body, err := readFrame(r.br, r.buf)
	if err != nil || kind != kindCM {
		t.Fatalf("reading a CM frame: kind %d, %v", kind, err)
	}
	m, err := decodeCM(body)
	must(t, err)
	return m
}

// readAll reads frames until the connection ends or d passes; it returns
// the packets and CM messages seen and how the stream ended.
func (r *rawPeer) readAll(d time.Duration) (pkts []packet, cms []cmMsg, end error) {
	r.nc.SetReadDeadline(time.Now().Add(d))
	for {
		kind, body, err := readFrame(r.br, r.buf)
		if err != nil {
			return pkts, cms, err
		}
		switch kind {
		case kindPacket:
			pk, err := decodePacket(body)
			if err != nil {
				return pkts, cms, err
			}
			pk.Payload = append([]byte(nil), pk.Payload...)
			pkts = append(pkts, pk)
		case kindCM:
			m, err := decodeCM(body)
			if err != nil {
				return pkts, cms, err
			}
			cms = append(cms, m)
		}
	}
}

// closeWrite half-closes the raw side: the server reads EOF.
func (r *rawPeer) closeWrite() { r.nc.(*net.TCPConn).CloseWrite() }

// finish closes the raw side and tears the server down, checking that
// nothing leaked.
func (rs *rawServer) finish(t testing.TB) {
	t.Helper()
	rs.peer.nc.Close()
	teardown(t, rs.srv)
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }
