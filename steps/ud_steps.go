package steps

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The ud tour's steps (tour_ud.go lists them).

// udState is what the ud tour keeps beyond the RC session's fields.
type udState struct {
	dest verbs.UDParam // where SENDs go: the client's the server QP (from ESTABLISHED), the server's the sender of the datagram it answers
	ah   verbs.AH      // the address handle to dest
	// received is the server's completion of the client's datagram: the
	// answer goes to its src_qp.
	received verbs.WC
	// answer is the client's: the server's answer, when it came before
	// the completion of a SEND the client was polling for.
	answer *verbs.WC
}

// udSnapshot is the ud tour's live state (nil on the other tours).
func (s *Session) udSnapshot() *UDState {
	if s.cfg.Tour != TourUD {
		return nil
	}
	u := &UDState{}
	if d := s.ud.dest; d.QPNum != 0 {
		u.HasDest, u.RemoteQPN, u.RemoteQKey = true, d.QPNum, d.QKey
	}
	if s.ud.ah != nil {
		a := s.ud.ah.Attr()
		u.AH = &a
	}
	return u
}

// udMessage is what the client's second datagram carries.
func udMessage(cfg Config) string {
	if cfg.Message == "" || cfg.Message == DefaultMessage {
		return DefaultUDMsg
	}
	return cfg.Message
}

// validateUD refuses what the ud tour cannot do (its catalogue row's
// check): a message above one datagram, lessons and the manual track
// (they run the RC tours).
func validateUD(cfg Config) error {
	switch {
	case len(cfg.Message)+1 > UDMTU:
		return configErrorf("--message is %d bytes; a UD datagram carries at most the path MTU, %d bytes with its NUL", len(cfg.Message), UDMTU)
	case cfg.Lesson != nil:
		return configErrorf("--tour ud and --lesson %s cannot be combined: lessons run on the write tour", cfg.Lesson.Name)
	case cfg.Track == TrackManual:
		return configErrorf("--tour ud and --track manual cannot be combined: the manual track runs the write tour")
	}
	return nil
}

func stepUDCreateID(_ context.Context, s *Session) (Outcome, error) {
	name := "id"
	if s.cfg.Role == Server {
		name = "listener"
	}
	call := createIDUDCall(name)
	id, err := s.ec.CreateID(verbs.PSUDP)
	if err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.set(func() {
		if s.cfg.Role == Server {
			s.listener = id
		} else {
			s.id = id
		}
	})
	return withC(Outcome{Results: []KV{KV{Name: resPortSpace, Value: valPSUDP}},
		Note: text.Text{EN: "Same rdma_cm calls as the RC tour, in another port space: a UDP-space client can only reach a UDP-space listener.",
			ZH: "和 RC 教程一样的 rdma_cm 调用，只是换了端口空间：UDP 空间的 client 只能找到 UDP 空间的 listener。"}}, call.Returned("0")), nil
}

func stepUDGetRequest(ctx context.Context, s *Session) (Outcome, error) {
	ev, err := s.waitEvent(ctx, verbs.EventConnectRequest, s.cfg.AcceptTimeout)
	if errors.Is(err, context.DeadlineExceeded) {
		err = problem(err, text.Text{EN: fmt.Sprintf("no client asked within %v", s.cfg.AcceptTimeout), ZH: fmt.Sprintf("%v 内没有 client 发来请求", s.cfg.AcceptTimeout)},
			text.Text{EN: "start the client with --tour ud, or raise --wait-client (0 waits forever)", ZH: "用 --tour ud 启动 client，或调大 --wait-client（0 表示一直等）"})
	}
	if err != nil {
		return withC(Outcome{}, getEvent(ev, verbs.EventConnectRequest, gotEvent(err))), err
	}
	id := ev.ID
	s.set(func() { s.id = id; s.useDevice(id.Device()) })
	s.got("SIDR_REQ", fmt.Sprintf("%d B private data", len(ev.PrivateData)))
	if _, err := s.onIWARP(id.Device()); err != nil {
		return withC(Outcome{}, getEvent(ev, verbs.EventConnectRequest, true)), err
	}
	return withC(Outcome{
		Results: []KV{result(resEvent, ev.Type.String()), result(resFrom, id.PeerAddr().String()), result(resIdVerbs, devName(id.Device())),
			result(resParamUdPrivateDataLen, fmt.Sprint(len(ev.PrivateData)))},
		Note: text.Text{EN: "A SIDR request (Service ID Resolution) names no QP of the client's: the client only asks where this service's QP is.",
			ZH: "SIDR 请求（Service ID Resolution）不带 client 的 QP：client 只是在问这个服务的 QP 在哪儿。"},
	}, getEvent(ev, verbs.EventConnectRequest, true), c.S(c.Assign("id", c.C("event->id"))), ackEvent()), nil
}

func stepUDCreateQP(_ context.Context, s *Session) (Outcome, error) {
	attr := udQPInitAttr(s.cq)
	call := createQPUDCall(attr)
	qp, err := s.id.CreateQP(s.pd, attr)
	if err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.set(func() { s.qp = qp })
	state := s.recordQPState()
	a, _ := qp.Query()
	return withC(Outcome{
		Results: []KV{result(resQpNum, fmt.Sprintf("0x%x", qp.Num())), result(resStateIbvQueryQp, state), result(resQkey, fmt.Sprintf("0x%x", a.QKey))},
		Note: text.Text{EN: "librdmacm moved the UD QP straight to RTS, with rdma_cm's Q_Key: a datagram QP needs no peer to be ready.",
			ZH: "librdmacm 直接把 UD QP 推到了 RTS，并设好 rdma_cm 的 Q_Key：数据报 QP 不需要对端就能就绪。"}},
		call.Returned("0"), c.S(c.Assign("qp", c.C("id->qp"))).Returned(fmt.Sprintf("{ .qp_num = 0x%x }", qp.Num()))), nil
}

func stepUDRegMR(_ context.Context, s *Session) (Outcome, error) {
	recv, err := s.regMR("recv_buf", UDRecvSize, verbs.AccessLocalWrite, &s.mrRecv)
	if err != nil {
		return recv, err
	}
	send, err := s.regMR("send_buf", UDSendSize, verbs.AccessLocalWrite, &s.mrSend)
	out := withC(Outcome{Results: append(recv.Results, send.Results...),
		Note: text.Text{EN: fmt.Sprintf("recv_buf is %d bytes: the 40-byte GRH every datagram arrives behind, and one path MTU (%d). No remote access: UD has no RDMA WRITE or READ.", UDRecvSize, UDMTU),
			ZH: fmt.Sprintf("recv_buf 有 %d 字节：每个数据报前面都有的 40 字节 GRH，加一个路径 MTU（%d）。没有远端访问权限：UD 没有 RDMA WRITE 和 READ。", UDRecvSize, UDMTU)}},
		append(recv.C, send.C...)...)
	return out, err
}

func stepUDAccept(_ context.Context, s *Session) (Outcome, error) {
	call := udAcceptCall()
	if err := s.id.Accept(verbs.ConnParam{}); err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.sent("SIDR_REP", fmt.Sprintf("qp_num=0x%x qkey=0x%x", s.qp.Num(), verbs.UDPQKey))
	return withC(Outcome{Results: []KV{result(resSent, fmt.Sprintf("SIDR_REP: qp_num 0x%x, qkey 0x%x", s.qp.Num(), verbs.UDPQKey))},
		Note: text.Text{EN: "That is all the server's CM does for UD: no RTU follows and no ESTABLISHED comes on this side. The QP was ready before.",
			ZH: "UD 下 server 的 CM 就做这么多：没有 RTU，这一侧也不会有 ESTABLISHED。QP 早就就绪了。"}}, call.Returned("0")), nil
}

func stepUDPostRecv(ctx context.Context, s *Session) (Outcome, error) {
	seen, err := s.awaitEarlyDatagram(ctx)
	if err != nil {
		return Outcome{}, err
	}
	wr := verbs.RecvWR{WRID: WRIDRecv, SGList: []verbs.SGE{{Addr: s.mrRecv.Addr(), Length: UDRecvSize, LKey: s.mrRecv.LKey()}}}
	call := udPostRecvCall(wr)
	if err := s.qp.PostRecv(wr); err != nil {
		return withC(Outcome{}, postFailed(call, err)), err
	}
	return withC(Outcome{Results: []KV{{Name: resReceiveQueue, Value: valOneRecvPosted}, {Name: resBeforeIt, Value: seen}},
		Note: text.Text{EN: "Posted after rdma_accept, on purpose: a datagram the client sent before this moment found no RECV and was dropped. On RC the responder would have answered RNR NAK and the sender retried; UD has neither.",
			ZH: "故意在 rdma_accept 之后才 post：client 在此之前发来的数据报没有 RECV 可用，已被丢弃。RC 的接收端会回 RNR NAK、发送端会重试；UD 两样都没有。"}}, call.Returned("0")), nil
}

func stepUDPollRecv(ctx context.Context, s *Session) (Outcome, error) {
	ctx, cancel := s.boundPeerWait(ctx) // the client's message is the peer's doing
	defer cancel()
	call := pollOne(verbs.WCRecv, "UD receive")
	wc, err := verbs.PollOne(ctx, s.cq)
	if err != nil {
		return withC(Outcome{}, call.Returned("0, again and again: no datagram came")), fmt.Errorf("UD receive: %w", err)
	}
	s.addCompletion(wc)
	s.set(func() { s.ud.received = wc })
	out := withC(Outcome{}, call.Returned(wcText(wc)+fmt.Sprintf(", .src_qp = 0x%x, .wc_flags = %s", wc.SrcQP, grhFlag(wc))),
		c.S(c.C(`print_escaped("[server] received after the GRH: ", recv_buf + 40, wc.byte_len - 40)`)).Only(c.ExportOnly))
	if wc.Status != verbs.WCSuccess {
		return out, &CompletionError{What: "UD receive", WC: wc}
	}
	buf, err := s.mrRecv.Read(0, int(min(wc.ByteLen, UDRecvSize)))
	if err != nil || len(buf) < verbs.GRHLen {
		return out, fmt.Errorf("UD receive: %d bytes, shorter than the GRH", wc.ByteLen)
	}
	msg := cString(buf[verbs.GRHLen:])
	src, dst := grhAddrs(buf[:verbs.GRHLen])
	s.got("UD SEND", fmt.Sprintf("%d B from QP 0x%x", wc.ByteLen-verbs.GRHLen, wc.SrcQP))
	out.Results = []KV{result(resByteLen, fmt.Sprintf("%d = 40 (GRH) + %d", wc.ByteLen, wc.ByteLen-verbs.GRHLen)),
		result(resSrcQp, fmt.Sprintf("0x%x", wc.SrcQP)), result(resGRHBytes019, fmt.Sprintf("% x", buf[:20])),
		result(resGRHBytes2039IPv4Header, fmt.Sprintf("% x", buf[20:verbs.GRHLen])),
		result(resIPv4SourceDestination, src+" → "+dst), result(resMessageRecvBuf40, msg.String())}
	out.Note = text.Text{EN: "The datagram sent before the RECV is not here, and nothing says it was lost: only this one arrived. Over RoCE v2 the GRH holds the packet's IPv4 header in its last 20 bytes.",
		ZH: "RECV 之前发的那个数据报不在这里，也没有任何地方说它丢了：到达的只有这一个。RoCE v2 下，GRH 的后 20 字节是这个包的 IPv4 头。"}
	if string(msg) == UDEarlyText {
		out.Note = text.Text{EN: "This time the RECV was posted before the client's first datagram arrived, so it was not dropped: whether a datagram finds a RECV is a race UD does nothing about.",
			ZH: "这次 RECV 在 client 第一个数据报到达之前就 post 好了，所以它没有被丢：数据报能不能碰上 RECV 是一场竞争，UD 不管。"}
	}
	return out, nil
}

// grhFlag is wc_flags as C.
func grhFlag(wc verbs.WC) string {
	if wc.HasGRH {
		return "IBV_WC_GRH"
	}
	return "0"
}

// grhAddrs reads the IPv4 source and destination out of a RoCE v2 GRH.
func grhAddrs(grh []byte) (src, dst string) {
	if len(grh) < verbs.GRHLen || grh[20]>>4 != 4 {
		return "?", "?"
	}
	return netip.AddrFrom4([4]byte(grh[32:36])).String(), netip.AddrFrom4([4]byte(grh[36:40])).String()
}

// awaitEarlyDatagram lets the client's first datagram arrive (and be
// dropped) before the RECV is posted. Only the simulated NIC can show
// that it came: it records every packet. A real NIC keeps no trace of a
// dropped datagram a program could wait for, so there the step says so
// and posts at once (on one rxe device no packet reaches a capture).
func (s *Session) awaitEarlyDatagram(ctx context.Context) (text.Text, error) {
	s.mu.Lock()
	tr, ok := s.dev.(verbs.PacketTracer)
	qpn := s.qp.Num()
	s.mu.Unlock()
	if !ok || !s.cfg.Provider.Simulated() {
		return text.Text{EN: "a real NIC shows no trace of a dropped datagram", ZH: "真实网卡不会留下被丢弃数据报的痕迹"}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	for {
		for _, p := range tr.Packets(0) {
			if !p.Outbound && p.Opcode == verbs.OpUDSendOnly && p.DestQP == qpn {
				return text.Text{EN: fmt.Sprintf("UD_SEND_ONLY to QP 0x%x arrived with no RECV posted: dropped", qpn),
					ZH: fmt.Sprintf("发往 QP 0x%x 的 UD_SEND_ONLY 到达时没有 RECV：被丢弃", qpn)}, nil
			}
		}
		select {
		case <-ctx.Done():
			return text.Text{}, fmt.Errorf("waiting for the client's first datagram: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}
