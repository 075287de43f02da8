package steps

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Each step function makes its call(s), publishes the resources it made
// and returns the C it executed with the actual values.

func stepCreateEventChannel(_ context.Context, s *Session) (Outcome, error) {
	ec, err := s.cfg.Provider.CreateEventChannel()
	if err != nil {
		return Outcome{Call: "rdma_create_event_channel() = NULL"}, problem(err,
			Text{"could not open the RDMA CM (rdma_create_event_channel failed)", "无法打开 RDMA CM（rdma_create_event_channel 失败）"},
			Text{"run `rdmatour doctor`: rdma_ucm must be loaded and /dev/infiniband/rdma_cm readable", "运行 `rdmatour doctor`：需要加载 rdma_ucm，且 /dev/infiniband/rdma_cm 可读"})
	}
	s.set(func() { s.ec = ec })
	fd := "fd=" + fmt.Sprint(ec.FD())
	if ec.FD() < 0 {
		fd = "simulated"
	}
	return Outcome{
		Call:    fmt.Sprintf("ec = rdma_create_event_channel() = %s", fd),
		Results: []KV{{"ec", fd}},
		Note:    Text{"CM events (address resolved, connect request, established, ...) will arrive on this channel.", "之后所有 CM 事件（地址解析完成、连接请求、连接建立……）都从这个通道取。"},
	}, nil
}

func stepCreateID(_ context.Context, s *Session) (Outcome, error) {
	id, err := s.ec.CreateID(verbs.PSTCP)
	name := "id"
	if s.cfg.Role == Server {
		name = "listener"
	}
	call := fmt.Sprintf("rdma_create_id(ec, &%s, NULL, RDMA_PS_TCP)", name)
	if err != nil {
		return Outcome{Call: call + " = -1"}, err
	}
	s.set(func() {
		if s.cfg.Role == Server {
			s.listener = id
		} else {
			s.id = id
		}
	})
	return Outcome{Call: call + " = 0", Results: []KV{{"port space", "RDMA_PS_TCP (reliable connected)"}},
		Note: Text{"The id is not bound to any device yet: id->verbs is NULL.", "这个 id 还没有绑定到任何设备：id->verbs 仍是 NULL。"}}, nil
}

func stepBindAddr(_ context.Context, s *Session) (Outcome, error) {
	call := fmt.Sprintf("rdma_bind_addr(listener, {%s})", s.cfg.Bind)
	if err := s.listener.BindAddr(s.cfg.Bind); err != nil {
		return Outcome{Call: call + " = -1"}, explainBind(err, s.cfg.Bind)
	}
	local := s.listener.LocalAddr()
	dev := "NULL (no RDMA device owns this address — wildcard or loopback: the device is known per connection)"
	if d := s.listener.Device(); d != nil {
		dev = d.Info().Name
	}
	return Outcome{Call: call + " = 0", Results: []KV{{"bound to", local.String()}, {"listener->verbs", dev}}}, nil
}

func explainBind(err error, addr netip.AddrPort) error {
	var ve *verbs.Error
	if errors.As(err, &ve) {
		switch ve.Errno.Error() {
		case "address already in use":
			return problem(err, Text{fmt.Sprintf("port %d is already in use", addr.Port()), fmt.Sprintf("端口 %d 已被占用", addr.Port())},
				Text{"stop the other server or pick another port with --port", "先停掉另一个 server，或用 --port 换一个端口"})
		case "cannot assign requested address":
			if addr.Addr().IsUnspecified() {
				// rdma_cm's answer when another listener holds the port on
				// one specific address (measured on rxe).
				return problem(err, Text{fmt.Sprintf("port %d is already taken by an RDMA listener on one of this machine's addresses", addr.Port()),
					fmt.Sprintf("端口 %d 已被本机某个地址上的 RDMA listener 占用", addr.Port())},
					Text{"stop the other server or pick another port with --port", "先停掉另一个 server，或用 --port 换一个端口"})
			}
			return problem(err, Text{fmt.Sprintf("%s is not an address of this machine", addr.Addr()), fmt.Sprintf("%s 不是本机的地址", addr.Addr())},
				Text{"use an address shown by `ip addr`, or leave --bind out to listen on all", "用 `ip addr` 里列出的地址，或不加 --bind 监听所有地址"})
		}
	}
	return err
}

func stepListen(_ context.Context, s *Session) (Outcome, error) {
	if err := s.listener.Listen(1); err != nil {
		return Outcome{Call: "rdma_listen(listener, 1) = -1"}, err
	}
	s.set(func() {})
	return Outcome{Call: "rdma_listen(listener, 1) = 0",
		Results: []KV{{"listening on", s.listener.LocalAddr().String()}},
		Note:    Text{"Now start the client.", "现在可以启动 client 了。"}}, nil
}

// waitEvent gets the next CM event, failing with a learner-level
// explanation if it is not the one the tour expects.
func (s *Session) waitEvent(ctx context.Context, want verbs.CMEventType, timeout time.Duration) (verbs.CMEvent, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ev, err := s.ec.GetEvent(ctx)
	if err != nil {
		return ev, fmt.Errorf("rdma_get_cm_event waiting for %s: %w", want, err)
	}
	s.setEvent(ev)
	if ev.Type == want {
		return ev, nil
	}
	return ev, unexpectedEvent(ev, want, s.cfg)
}

// CMEventError is an rdma_cm event the tour did not expect.
type CMEventError struct {
	Got verbs.CMEventType
	// Want is the event the tour waited for; -1 when it waited for none.
	Want verbs.CMEventType
	// Status is event->status.
	Status int
}

func (e *CMEventError) Error() string {
	if e.Want < 0 {
		return fmt.Sprintf("got %s (status %d)", e.Got, e.Status)
	}
	return fmt.Sprintf("got %s (status %d), expected %s", e.Got, e.Status, e.Want)
}

func unexpectedEvent(ev verbs.CMEvent, want verbs.CMEventType, cfg Config) error {
	err := &CMEventError{Got: ev.Type, Want: want, Status: ev.Status}
	peer := cfg.Server.String()
	switch ev.Type {
	case verbs.EventRejected:
		if ev.Status == 28 {
			return problem(err, Text{"the server rejected the connection", "server 拒绝了连接"},
				Text{"look at the server's screen for why", "看 server 端屏幕上的原因"})
		}
		return problem(err, Text{"nothing is listening at " + peer, peer + " 上没有程序在监听"},
			Text{"start `rdmatour server` there first, and check the address and --port", "先在那里启动 `rdmatour server`，再核对地址和 --port"})
	case verbs.EventUnreachable, verbs.EventConnectError:
		return problem(err, Text{peer + " did not answer as an RDMA server", peer + " 没有以 RDMA server 的身份应答"},
			Text{"check the address and port, that rdmatour server runs there, and that both sides use the same backend (--backend)", "检查地址和端口、对端是否在运行 rdmatour server，以及两端是否用同一种 backend（--backend）"})
	case verbs.EventAddrError:
		if ev.Status == -110 || ev.Status == -113 {
			return problem(err, Text{"nothing at " + cfg.Server.Addr().String() + " answered address resolution (ARP/ND)", cfg.Server.Addr().String() + " 没有响应地址解析（ARP/ND）"},
				Text{"check that the server is up and the address is right (`ping` it)", "确认 server 已开机、地址正确（先 `ping` 一下）"})
		}
		return problem(err, Text{"no RDMA device serves a route to " + peer, "没有任何 RDMA 设备能到达 " + peer},
			Text{"run `rdmatour doctor`; with Soft-RoCE: `rdma link add rxe0 type rxe netdev <nic>`", "运行 `rdmatour doctor`；若用 Soft-RoCE：`rdma link add rxe0 type rxe netdev <网卡>`"})
	case verbs.EventRouteError:
		return problem(err, Text{"no route to " + peer, "找不到到 " + peer + " 的路由"},
			Text{"check `ip route` and the address", "检查 `ip route` 和地址"})
	case verbs.EventDisconnected, verbs.EventDeviceRemoval:
		return problem(err, Text{"the peer went away", "对端已断开"},
			Text{"start both sides again", "两端都重新启动"})
	}
	return problem(err, Text{"unexpected CM event " + ev.Type.String(), "意外的 CM 事件 " + ev.Type.String()}, Text{})
}

func stepGetConnectRequest(ctx context.Context, s *Session) (Outcome, error) {
	ev, err := s.waitEvent(ctx, verbs.EventConnectRequest, s.cfg.AcceptTimeout)
	if errors.Is(err, context.DeadlineExceeded) {
		err = problem(err, Text{fmt.Sprintf("no client connected within %v", s.cfg.AcceptTimeout), fmt.Sprintf("%v 内没有 client 连上来", s.cfg.AcceptTimeout)},
			Text{"start the client, or raise --wait-client (0 waits forever)", "启动 client，或调大 --wait-client（0 表示一直等）"})
	}
	if err != nil {
		return Outcome{Call: "rdma_get_cm_event(ec, &event) = -1"}, err
	}
	id := ev.ID
	s.set(func() { s.id = id; s.dev = id.Device() })
	s.got("REQ", fmt.Sprintf("qpn=0x%x, %d B private data", ev.QPNum, len(ev.PrivateData)))
	return Outcome{
		Call: "rdma_get_cm_event(ec, &event) = 0  /* " + ev.Type.String() + " */\nid = event->id; rdma_ack_cm_event(event)",
		Results: []KV{{"event", ev.Type.String()}, {"from", id.PeerAddr().String()}, {"id->verbs", devName(id.Device())},
			{"client QPN", fmt.Sprintf("0x%x", ev.QPNum)}, {"initiator_depth", fmt.Sprint(ev.InitiatorDepth)}, {"responder_resources", fmt.Sprint(ev.ResponderResources)}},
		Note: Text{"event->id is a NEW cm id for this connection, already bound to the device the request came in on; the listener keeps listening.",
			"event->id 是为这条连接新建的 cm id，已绑定到请求到达的那块设备；listener 继续监听。"},
	}, nil
}

func devName(d verbs.Device) string {
	if d == nil {
		return "NULL"
	}
	return d.Info().Name
}

func stepResolveAddr(ctx context.Context, s *Session) (Outcome, error) {
	var src netip.AddrPort
	srcText := "NULL"
	if s.cfg.Src.IsValid() {
		src = netip.AddrPortFrom(s.cfg.Src, 0)
		srcText = s.cfg.Src.String()
	}
	call := fmt.Sprintf("rdma_resolve_addr(id, %s, {%s}, %d)", srcText, s.cfg.Server, resolveTimeout.Milliseconds())
	if err := s.id.ResolveAddr(src, s.cfg.Server, resolveTimeout); err != nil {
		return Outcome{Call: call + " = -1"}, problem(err, Text{"rdma_resolve_addr refused the address", "rdma_resolve_addr 不接受这个地址"},
			Text{"check the server address (and --src)", "检查 server 地址（以及 --src）"})
	}
	ev, err := s.waitEvent(ctx, verbs.EventAddrResolved, s.cfg.Timeout)
	if err != nil {
		return Outcome{Call: call + " = 0\nrdma_get_cm_event(ec, &event)"}, err
	}
	dev := s.id.Device()
	s.set(func() { s.dev = dev })
	return Outcome{
		Call:    call + " = 0\nrdma_get_cm_event(ec, &event) = 0  /* " + ev.Type.String() + " */; rdma_ack_cm_event(event)",
		Results: []KV{{"event", ev.Type.String()}, {"id->verbs", devName(dev)}, {"port", fmt.Sprint(s.id.PortNum())}, {"local", s.id.LocalAddr().String()}},
		Note:    Text{"The id is now bound to the RDMA device that can reach the server; PD, CQ and QP are created on it.", "这个 id 现在绑定到了能到达 server 的 RDMA 设备上；PD、CQ、QP 都要建在它上面。"},
	}, nil
}

func stepAllocPD(_ context.Context, s *Session) (Outcome, error) {
	if s.dev == nil {
		return Outcome{}, errors.New("id->verbs is NULL: no device yet")
	}
	pd, err := s.dev.AllocPD()
	if err != nil {
		return Outcome{Call: "pd = ibv_alloc_pd(id->verbs) = NULL"}, err
	}
	s.set(func() { s.pd = pd })
	return Outcome{Call: fmt.Sprintf("pd = ibv_alloc_pd(id->verbs /* %s */) = {handle=%d}", devName(s.dev), pd.Handle()),
		Results: []KV{{"pd->handle", fmt.Sprint(pd.Handle())}}}, nil
}

func stepCreateCQ(_ context.Context, s *Session) (Outcome, error) {
	cq, err := s.dev.CreateCQ(CQDepth)
	if err != nil {
		return Outcome{Call: fmt.Sprintf("cq = ibv_create_cq(id->verbs, %d, NULL, NULL, 0) = NULL", CQDepth)}, err
	}
	s.set(func() { s.cq = cq })
	return Outcome{Call: fmt.Sprintf("cq = ibv_create_cq(id->verbs, %d, NULL, NULL, 0) = {cqe=%d}", CQDepth, cq.CQE()),
		Results: []KV{{"cq->cqe", fmt.Sprint(cq.CQE())}},
		Note:    Text{"One CQ serves both the send and the receive queue, as in the seed.", "和 seed 一样，发送队列和接收队列共用这一个 CQ。"}}, nil
}

// qpInitAttr is the seed's build_qp attributes.
func (s *Session) qpInitAttr() verbs.QPInitAttr {
	return verbs.QPInitAttr{SendCQ: s.cq, RecvCQ: s.cq, Type: verbs.QPTRC,
		Cap: verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}}
}

func stepCreateQP(_ context.Context, s *Session) (Outcome, error) {
	attr := s.qpInitAttr()
	call := "rdma_create_qp(id, pd, {send_cq=cq, recv_cq=cq, qp_type=IBV_QPT_RC, cap={max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1}})"
	qp, err := s.id.CreateQP(s.pd, attr)
	if err != nil {
		return Outcome{Call: call + " = -1"}, err
	}
	s.set(func() { s.qp = qp })
	state := s.recordQPState()
	return Outcome{Call: call + " = 0\nqp = id->qp",
		Results: []KV{{"qp_num", fmt.Sprintf("0x%x", qp.Num())}, {"state (ibv_query_qp)", state}},
		Note:    Text{"librdmacm created the QP and already moved it RESET → INIT.", "librdmacm 建好 QP 后已经把它从 RESET 推到了 INIT。"}}, nil
}

// recordQPState queries the QP and appends a new state to the history.
func (s *Session) recordQPState() string {
	s.mu.Lock()
	qp := s.qp
	s.mu.Unlock()
	if qp == nil {
		return "-"
	}
	attr, err := qp.Query()
	if err != nil {
		return "ibv_query_qp failed: " + err.Error()
	}
	s.set(func() {
		if n := len(s.qpHistory); n == 0 || s.qpHistory[n-1] != attr.State {
			s.qpHistory = append(s.qpHistory, attr.State)
		}
	})
	return attr.State.String()
}

func (s *Session) regMR(name string, size int, access verbs.Access, dst *verbs.MR) (Outcome, error) {
	mrName := strings.TrimSuffix(name, "_buf") + "_mr" // the seed's names: mr, doorbell_mr, recv_mr, send_mr
	if name == "buf" {
		mrName = "mr"
	}
	call := fmt.Sprintf("posix_memalign(&%s, 4096, %d); %s = ibv_reg_mr(pd, %s, %d, %s)", name, size, mrName, name, size, access)
	mr, err := s.pd.RegMR(size, access)
	if err != nil {
		return Outcome{Call: call + " = NULL"}, err
	}
	s.set(func() { *dst = mr })
	return Outcome{Call: call + fmt.Sprintf(" = {addr=0x%x, lkey=0x%x, rkey=0x%x}", mr.Addr(), mr.LKey(), mr.RKey()),
		Results: []KV{{name + " addr", fmt.Sprintf("0x%x", mr.Addr())}, {"lkey", fmt.Sprintf("0x%x", mr.LKey())}, {"rkey", fmt.Sprintf("0x%x", mr.RKey())}, {"access", access.Short()}}}, nil
}

const remoteAccess = verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead

func stepRegData(_ context.Context, s *Session) (Outcome, error) {
	access := remoteAccess
	if s.cfg.Lesson == "no-remote-write" && s.cfg.Role == Server {
		access = verbs.AccessLocalWrite // the lesson's mistake
	}
	out, err := s.regMR("buf", BufSize, access, &s.mrData)
	if access != remoteAccess && err == nil {
		out.Note = Text{"The mistake of this lesson: no IBV_ACCESS_REMOTE_WRITE. Registration succeeds; the client's WRITE will not.",
			"本课故意犯的错：没有 IBV_ACCESS_REMOTE_WRITE。注册会成功，client 的 WRITE 不会。"}
	}
	return out, err
}

func stepRegDoorbell(_ context.Context, s *Session) (Outcome, error) {
	return s.regMR("doorbell", DoorbellSize, remoteAccess, &s.mrDoor)
}

func stepRegMsg(_ context.Context, s *Session) (Outcome, error) {
	recv, err := s.regMR("recv_buf", MsgBufSize, verbs.AccessLocalWrite, &s.mrRecv)
	if err != nil {
		return recv, err
	}
	send, err := s.regMR("send_buf", MsgBufSize, verbs.AccessLocalWrite, &s.mrSend)
	out := Outcome{Call: recv.Call + "\n" + send.Call, Results: append(recv.Results, send.Results...),
		Note: Text{"LOCAL_WRITE only: these buffers are never touched by the peer's one-sided operations.", "只有 LOCAL_WRITE：对端的单边操作从不碰这两块 buffer。"}}
	return out, err
}

func stepPostRecv(_ context.Context, s *Session) (Outcome, error) {
	wr := verbs.RecvWR{WRID: WRIDRecv, SGList: []verbs.SGE{{Addr: s.mrRecv.Addr(), Length: MsgBufSize, LKey: s.mrRecv.LKey()}}}
	call := fmt.Sprintf("ibv_post_recv(qp, {wr_id=%d, sg_list={addr=0x%x, length=%d, lkey=0x%x}, num_sge=1}, &bad)",
		wr.WRID, wr.SGList[0].Addr, wr.SGList[0].Length, wr.SGList[0].LKey)
	if err := s.qp.PostRecv(wr); err != nil {
		return Outcome{Call: call + " = " + errnoText(err)}, err
	}
	return Outcome{Call: call + " = 0", Results: []KV{{"receive queue", "1 RECV WQE posted"}},
		Note: Text{"Posted before rdma_accept, so a SEND (or WRITE_WITH_IMM) arriving right after ESTABLISHED finds a buffer.", "在 rdma_accept 之前 post，这样连接一建立就到达的 SEND（或 WRITE_WITH_IMM）也有 buffer 可用。"}}, nil
}

func errnoText(err error) string {
	var ve *verbs.Error
	if errors.As(err, &ve) && ve.Errno != 0 {
		return verbs.ErrnoName(ve.Errno)
	}
	return "error"
}

func stepAccept(_ context.Context, s *Session) (Outcome, error) {
	info := RemoteInfo{
		Addr: s.mrData.Addr(), RKey: s.mrData.RKey(), Size: BufSize,
		DoorbellAddr: s.mrDoor.Addr(), DoorbellRKey: s.mrDoor.RKey(), DoorbellSize: 8,
	}
	addrExpr := "htonll(addr)"
	if s.cfg.Lesson == "htonl-address" {
		// The lesson's mistake: info.addr_be = htonl((uintptr_t)buf). htonl
		// keeps the low 32 bits; stored in a little-endian u64 they read
		// back, through ntohll, as those bits shifted up by 32.
		info.Addr = uint64(uint32(info.Addr)) << 32
		addrExpr = "htonl((uintptr_t)buf)"
	}
	raw := info.Marshal()
	p := verbs.ConnParam{PrivateData: raw, ResponderResources: 1, InitiatorDepth: 1, RNRRetryCount: s.cfg.RNRRetry}
	call := fmt.Sprintf("info.addr_be = %s; ...\nrdma_accept(id, {private_data=remote_info{addr=0x%x, rkey=0x%x, size=%d, doorbell_addr=0x%x, doorbell_rkey=0x%x, doorbell_size=%d} (%d B), responder_resources=1, initiator_depth=1, rnr_retry_count=%d})",
		addrExpr, info.Addr, info.RKey, info.Size, info.DoorbellAddr, info.DoorbellRKey, info.DoorbellSize, len(raw), s.cfg.RNRRetry)
	if err := s.id.Accept(p); err != nil {
		return Outcome{Call: call + " = -1"}, err
	}
	s.set(func() { s.remote = &RemoteState{Info: info, Raw: raw} })
	s.sent("REP", fmt.Sprintf("remote_info: addr=0x%x rkey=0x%x", info.Addr, info.RKey))
	state := s.recordQPState()
	return Outcome{Call: call + " = 0",
		Results: []KV{{"private data", fmt.Sprintf("% x", raw)}, {"QP state", state}},
		Note:    Text{"librdmacm moved the QP to RTR and RTS before sending the REP.", "librdmacm 在发出 REP 之前已把 QP 推到 RTR 和 RTS。"}}, nil
}

func stepConnect(_ context.Context, s *Session) (Outcome, error) {
	p := verbs.ConnParam{ResponderResources: 1, InitiatorDepth: 1, RNRRetryCount: s.cfg.RNRRetry}
	call := fmt.Sprintf("rdma_connect(id, {responder_resources=1, initiator_depth=1, retry_count=0, rnr_retry_count=%d})", s.cfg.RNRRetry)
	if err := s.id.Connect(p); err != nil {
		return Outcome{Call: call + " = -1"}, err
	}
	s.sent("REQ", fmt.Sprintf("qpn=0x%x", s.qp.Num()))
	return Outcome{Call: call + " = 0", Results: []KV{{"sent", "CM REQ"}},
		Note: Text{"rdma_connect only sends the request; the answer comes as an event.", "rdma_connect 只是把请求发出去，结果以事件的形式返回。"}}, nil
}

func stepResolveRoute(ctx context.Context, s *Session) (Outcome, error) {
	call := fmt.Sprintf("rdma_resolve_route(id, %d)", resolveTimeout.Milliseconds())
	if err := s.id.ResolveRoute(resolveTimeout); err != nil {
		return Outcome{Call: call + " = -1"}, err
	}
	ev, err := s.waitEvent(ctx, verbs.EventRouteResolved, s.cfg.Timeout)
	if err != nil {
		return Outcome{Call: call + " = 0\nrdma_get_cm_event(ec, &event)"}, err
	}
	return Outcome{Call: call + " = 0\nrdma_get_cm_event(ec, &event) = 0  /* " + ev.Type.String() + " */; rdma_ack_cm_event(event)",
		Results: []KV{{"event", ev.Type.String()}}}, nil
}

func stepGetEstablished(ctx context.Context, s *Session) (Outcome, error) {
	ev, err := s.waitEvent(ctx, verbs.EventEstablished, s.cfg.Timeout)
	if err != nil {
		return Outcome{Call: "rdma_get_cm_event(ec, &event) = 0  /* " + ev.Type.String() + " */"}, err
	}
	s.set(func() { s.connected = true })
	out := Outcome{Call: "rdma_get_cm_event(ec, &event) = 0  /* " + ev.Type.String() + " */"}
	if s.cfg.Role == Server {
		s.got("RTU", "")
		state := s.recordQPState()
		out.Call += "; rdma_ack_cm_event(event)"
		out.Results = []KV{{"event", ev.Type.String()}, {"QP state", state}}
		out.Note = Text{"The client's RTU arrived: the connection is up.", "client 的 RTU 到了：连接建立。"}
		return out, nil
	}
	s.got("REP", fmt.Sprintf("%d B private data", len(ev.PrivateData)))
	s.sent("RTU", "")
	info, perr := ParseRemoteInfo(ev.PrivateData)
	if perr != nil {
		return out, problem(perr, Text{"the server sent no remote_info: it is not an rdmatour/seed server", "server 没有发来 remote_info：它不是 rdmatour/seed 的 server"}, Text{})
	}
	raw := append([]byte(nil), ev.PrivateData...)
	s.set(func() { s.remote = &RemoteState{Info: info, Raw: raw} })
	state := s.recordQPState()
	out.Call += fmt.Sprintf("\nmemcpy(&info, event->param.conn.private_data, 32)  /* private_data_len=%d */; rdma_ack_cm_event(event)", len(ev.PrivateData))
	out.Results = []KV{{"event", ev.Type.String()}, {"private_data_len", fmt.Sprint(len(ev.PrivateData))},
		{"remote addr", fmt.Sprintf("0x%x", info.Addr)}, {"remote rkey", fmt.Sprintf("0x%x", info.RKey)}, {"remote size", fmt.Sprint(info.Size)},
		{"doorbell addr", fmt.Sprintf("0x%x", info.DoorbellAddr)}, {"doorbell rkey", fmt.Sprintf("0x%x", info.DoorbellRKey)}, {"QP state", state}}
	out.Note = Text{"librdmacm moved the QP to RTR and RTS and sent the RTU while handling this event. remote_info is the first 32 bytes of the private data.",
		"librdmacm 在处理这个事件时把 QP 推到了 RTR、RTS 并发出 RTU。remote_info 就是 private data 的前 32 字节。"}
	return out, nil
}

// writeWR builds the seed's post_rdma_write_raw work request.
func writeWR(op verbs.WROpcode, wrID uint64, local verbs.MR, length uint32, raddr uint64, rkey uint32) verbs.SendWR {
	return verbs.SendWR{WRID: wrID, Opcode: op, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: local.Addr(), Length: length, LKey: local.LKey()}}, RemoteAddr: raddr, RKey: rkey}
}

func sendCall(wr verbs.SendWR) string {
	c := fmt.Sprintf("ibv_post_send(qp, {wr_id=%d, opcode=%s, send_flags=%s, sg_list={addr=0x%x, length=%d, lkey=0x%x}",
		wr.WRID, wr.Opcode, wr.Flags, wr.SGList[0].Addr, wr.SGList[0].Length, wr.SGList[0].LKey)
	if wr.Opcode != verbs.WRSend {
		c += fmt.Sprintf(", wr.rdma={remote_addr=0x%x, rkey=0x%x}", wr.RemoteAddr, wr.RKey)
	}
	if wr.Opcode == verbs.WRRDMAWriteWithImm || wr.Opcode == verbs.WRSendWithImm {
		c += fmt.Sprintf(", imm_data=htonl(0x%x)", wr.ImmData)
	}
	return c + "}, &bad)"
}

func (s *Session) postWrite(withImm bool) (Outcome, error) {
	msg := append([]byte(s.cfg.Message), 0)
	if err := s.mrData.Write(0, msg); err != nil {
		return Outcome{}, err
	}
	op := verbs.WRRDMAWrite
	if withImm {
		op = verbs.WRRDMAWriteWithImm
	}
	s.mu.Lock()
	info := s.remote.Info
	s.mu.Unlock()
	raddr, rkey, mistake := info.Addr, info.RKey, ""
	switch s.cfg.Lesson {
	case "bad-rkey":
		rkey = s.mrData.LKey()
		mistake = fmt.Sprintf("/* the lesson's mistake: rkey = mr->lkey (0x%x), not the server's rkey 0x%x */\n", rkey, info.RKey)
	case "out-of-bounds":
		raddr = info.Addr + uint64(info.Size) - 8
		mistake = fmt.Sprintf("/* the lesson's mistake: remote_addr = addr + size - 8, then %d bytes */\n", len(msg))
	}
	wr := writeWR(op, WRIDWrite, s.mrData, uint32(len(msg)), raddr, rkey)
	if withImm {
		wr.ImmData = ImmValue
	}
	call := fmt.Sprintf("snprintf(buf, 4096, %q)\n", s.cfg.Message) + mistake + sendCall(wr)
	if err := s.qp.PostSend(wr); err != nil {
		return Outcome{Call: call + " = " + errnoText(err)}, err
	}
	label := "RDMA WRITE"
	if withImm {
		label = "RDMA WRITE+IMM"
	}
	s.sent(label, fmt.Sprintf("%d B → 0x%x", len(msg), info.Addr))
	return Outcome{Call: call + " = 0", Results: []KV{{"bytes", fmt.Sprint(len(msg))}, {"to", fmt.Sprintf("0x%x rkey 0x%x", info.Addr, info.RKey)}},
		Note: Text{"Posting returns at once; the NIC moves the bytes. The server's CPU is not involved.", "post 立即返回，搬数据的是网卡；server 的 CPU 完全不参与。"}}, nil
}

func stepPostWrite(_ context.Context, s *Session) (Outcome, error) { return s.postWrite(false) }

// stepPostWriteEarly is the post-before-connect lesson's mistake: a WRITE
// posted while the QP is still in INIT (no remote_info yet either).
func stepPostWriteEarly(_ context.Context, s *Session) (Outcome, error) {
	state := s.recordQPState()
	// Zero bytes and unsignaled, so that it cannot disturb the rest of the
	// tour: measured on rxe (rdma-core 44, Linux 6.1), a WR rejected here
	// with EINVAL still sits in the send queue and runs once the QP reaches
	// RTS. A zero-length WRITE needs no valid rkey (IBA C9-88), and an
	// unsignaled success leaves no completion.
	wr := verbs.SendWR{WRID: WRIDEarly, Opcode: verbs.WRRDMAWrite,
		SGList: []verbs.SGE{{Addr: s.mrData.Addr(), Length: 0, LKey: s.mrData.LKey()}}}
	call := sendCall(wr) + "  /* QP state " + state + " */"
	if err := s.qp.PostSend(wr); err != nil {
		return Outcome{Call: call + " = " + errnoText(err), Results: []KV{{"QP state", state}, {"returned", errnoText(err)}},
			Note: Text{"The error is the return value of ibv_post_send: nothing was queued, so no completion will ever report it.",
				"错误是 ibv_post_send 的返回值：什么都没进队列，所以也不会有任何 completion 报告它。"}}, err
	}
	return Outcome{Call: call + " = 0"}, nil
}
func stepPostWriteImm(_ context.Context, s *Session) (Outcome, error) { return s.postWrite(true) }

func stepPostSend(_ context.Context, s *Session) (Outcome, error) {
	text := append([]byte(DoneText), 0)
	if err := s.mrSend.Write(0, text); err != nil {
		return Outcome{}, err
	}
	wr := verbs.SendWR{WRID: WRIDSend, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: s.mrSend.Addr(), Length: uint32(len(text)), LKey: s.mrSend.LKey()}}}
	call := fmt.Sprintf("snprintf(send_buf, 128, %q)\n", DoneText) + sendCall(wr)
	if err := s.qp.PostSend(wr); err != nil {
		return Outcome{Call: call + " = " + errnoText(err)}, err
	}
	s.sent("SEND", DoneText)
	return Outcome{Call: call + " = 0", Results: []KV{{"bytes", fmt.Sprint(len(text))}},
		Note: Text{"A two-sided SEND: it consumes the RECV the server posted before accepting.", "双边 SEND：它会消耗 server 在 accept 之前 post 的那个 RECV。"}}, nil
}

func stepPostDoorbell(_ context.Context, s *Session) (Outcome, error) {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], DoorbellValue)
	if err := s.mrDoor.Write(0, v[:]); err != nil {
		return Outcome{}, err
	}
	s.mu.Lock()
	info := s.remote.Info
	s.mu.Unlock()
	wr := writeWR(verbs.WRRDMAWrite, WRIDDoorbell, s.mrDoor, 8, info.DoorbellAddr, info.DoorbellRKey)
	call := "*doorbell = htonll(1)\n" + sendCall(wr)
	if err := s.qp.PostSend(wr); err != nil {
		return Outcome{Call: call + " = " + errnoText(err)}, err
	}
	s.sent("RDMA WRITE", fmt.Sprintf("doorbell 8 B → 0x%x", info.DoorbellAddr))
	return Outcome{Call: call + " = 0", Results: []KV{{"to", fmt.Sprintf("0x%x rkey 0x%x", info.DoorbellAddr, info.DoorbellRKey)}},
		Note: Text{"Posted after the data WRITE on the same QP.", "在同一个 QP 上、紧跟数据 WRITE 之后 post。"}}, nil
}

// pollStep waits for one completion and checks it like the seed's poll_one.
func (s *Session) pollStep(ctx context.Context, what string, wantOp verbs.WCOpcode) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	wc, err := verbs.PollOne(ctx, s.cq)
	if err != nil {
		return Outcome{Call: "ibv_poll_cq(cq, 1, &wc) = 0 ..."}, fmt.Errorf("%s: %w", what, err)
	}
	s.addCompletion(wc)
	state := s.recordQPState()
	out := Outcome{Call: "ibv_poll_cq(cq, 1, &wc) = 1  /* " + wcText(wc) + " */",
		Results: []KV{{"status", wc.Status.String()}, {"opcode", opcodeText(wc)}, {"wr_id", fmt.Sprint(wc.WRID)}, {"QP state", state}}}
	if wc.Status != verbs.WCSuccess {
		return out, &CompletionError{What: what, WC: wc}
	}
	if wc.Opcode == verbs.WCSend || wc.Opcode == verbs.WCRDMAWrite {
		s.got("ACK", wc.Opcode.String())
	}
	if wc.Opcode != wantOp {
		return out, fmt.Errorf("%s: unexpected completion opcode %s", what, wc.Opcode)
	}
	return out, nil
}

// CompletionError is a work completion with a status other than success.
type CompletionError struct {
	What string
	WC   verbs.WC
}

func (e *CompletionError) Error() string {
	return fmt.Sprintf("%s failed: status=%s", e.What, e.WC.Status)
}

// opcodeText is the completion's opcode, which is defined only on success.
func opcodeText(wc verbs.WC) string {
	if wc.Status != verbs.WCSuccess {
		return "(undefined: the completion failed)"
	}
	return wc.Opcode.String()
}

// wcText prints a completion as C would show it. For a failed completion
// only wr_id, status, qp_num and vendor_err are defined (ibv_poll_cq(3));
// rxe, for one, leaves garbage in opcode, so it is not printed.
func wcText(wc verbs.WC) string {
	if wc.Status != verbs.WCSuccess {
		return fmt.Sprintf("wc{wr_id=%d, status=%s, qp_num=0x%x, vendor_err=0x%x /* opcode, byte_len: undefined on error */}", wc.WRID, wc.Status.CName(), wc.QPNum, wc.VendorErr)
	}
	t := fmt.Sprintf("wc{wr_id=%d, status=%s, opcode=%s, byte_len=%d, qp_num=0x%x", wc.WRID, wc.Status.CName(), wc.Opcode, wc.ByteLen, wc.QPNum)
	if wc.HasImm {
		t += fmt.Sprintf(", imm_data=0x%x", wc.ImmData)
	}
	return t + "}"
}

func stepPollWrite(ctx context.Context, s *Session) (Outcome, error) {
	out, err := s.pollStep(ctx, "RDMA_WRITE completion", verbs.WCRDMAWrite)
	if err == nil {
		out.Note = Text{"The completion means the server's NIC acknowledged the data: it is in the server's memory. The server itself got no completion for a plain WRITE.",
			"这个完成说明 server 的网卡已经 ACK：数据已在 server 内存里。普通 WRITE 在 server 端不会产生任何完成。"}
	}
	return out, err
}

func stepPollNotify(ctx context.Context, s *Session) (Outcome, error) {
	what := "SEND completion"
	op := verbs.WCSend
	if s.cfg.Notify == NotifyDoorbell {
		what, op = "doorbell RDMA_WRITE completion", verbs.WCRDMAWrite
	}
	return s.pollStep(ctx, what, op)
}

// stepWaitNotify is the seed's wait_for_done: whichever comes first, a
// receive completion (SEND or WRITE_WITH_IMM) or the doorbell flag. It
// also watches the CM channel so a vanished client ends the wait.
func stepWaitNotify(ctx context.Context, s *Session) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	backoff := 50 * time.Microsecond
	lastCM := time.Now()
	for {
		wcs, err := s.cq.Poll(1)
		if err != nil {
			return Outcome{Call: "ibv_poll_cq(cq, 1, &wc) = -1"}, err
		}
		if len(wcs) == 1 {
			return s.finishNotify(wcs[0])
		}
		db, err := s.mrDoor.Read(0, 8)
		if err != nil {
			return Outcome{}, err
		}
		if binary.BigEndian.Uint64(db) == DoorbellValue {
			return s.finishDoorbell()
		}
		if time.Since(lastCM) > 100*time.Millisecond {
			lastCM = time.Now()
			if err := s.checkPeerGone(ctx); err != nil {
				return Outcome{Call: "ibv_poll_cq(cq, 1, &wc) = 0 ..."}, err
			}
		}
		select {
		case <-ctx.Done():
			return Outcome{Call: "ibv_poll_cq(cq, 1, &wc) = 0 ... ; *doorbell == 0 ..."}, fmt.Errorf("waiting for the client's notification: %w", ctx.Err())
		case <-time.After(backoff):
		}
		if backoff < 2*time.Millisecond {
			backoff *= 2
		}
	}
}

// peerHungUp reports whether the peer's DREQ (DISCONNECTED) has been seen.
func (s *Session) peerHungUp() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peerDREQ
}

// checkPeerGone looks for a CM event without blocking; DISCONNECTED while
// the tour still waits means the peer vanished.
func (s *Session) checkPeerGone(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	ev, err := s.ec.GetEvent(pctx)
	if err != nil {
		return nil // nothing pending
	}
	s.setEvent(ev)
	if ev.Type == verbs.EventDisconnected || ev.Type == verbs.EventDeviceRemoval {
		s.set(func() { s.disconnected, s.peerDREQ = true, true })
		s.got("DREQ", "")
		return problem(&CMEventError{Got: ev.Type, Want: -1, Status: ev.Status}, Text{"the peer disconnected before finishing the tour", "对端在完成之前就断开了"},
			Text{"start both sides again", "两端都重新启动"})
	}
	return nil
}

func (s *Session) finishNotify(wc verbs.WC) (Outcome, error) {
	s.addCompletion(wc)
	out := Outcome{Call: "ibv_poll_cq(cq, 1, &wc) = 1  /* " + wcText(wc) + " */"}
	if wc.Status != verbs.WCSuccess {
		return out, &CompletionError{What: "recv done message", WC: wc}
	}
	data, err := s.mrData.Read(0, BufSize)
	if err != nil {
		return out, err
	}
	res := &Result{Message: cString(data)}
	switch wc.Opcode {
	case verbs.WCRecv:
		b, err := s.mrRecv.Read(0, MsgBufSize)
		if err != nil {
			return out, err
		}
		res.Via = NotifySend
		res.Notice = cString(b)
		s.got("SEND", res.Notice)
		out.Call += "\nprintf(\"%s\", recv_buf)"
	case verbs.WCRecvRDMAWithImm:
		res.Via = NotifyImm
		res.Notice = fmt.Sprintf("imm_data=0x%x", wc.ImmData)
		out.Call += "\nntohl(wc.imm_data)"
	default:
		return out, fmt.Errorf("unexpected completion opcode %s", wc.Opcode)
	}
	s.set(func() { s.result = res })
	out.Results = resultKVs(res, wc)
	out.Note = Text{"The RECV completion is the notification; the data was already in the buffer before it.", "这个 RECV 完成就是通知；数据在它之前就已经在 buffer 里了。"}
	return out, nil
}

func (s *Session) finishDoorbell() (Outcome, error) {
	data, err := s.mrData.Read(0, BufSize)
	if err != nil {
		return Outcome{}, err
	}
	res := &Result{Via: NotifyDoorbell, Message: cString(data), Notice: fmt.Sprintf("doorbell=%d", DoorbellValue)}
	s.set(func() { s.result = res })
	s.got("RDMA WRITE", "doorbell = 1")
	return Outcome{Call: "ntohll(*doorbell) == 1; __sync_synchronize()",
		Results: resultKVs(res, verbs.WC{}),
		Note: Text{"No completion here: the server's CPU saw the flag change in memory.",
			"这里没有任何完成：是 server 的 CPU 看到了内存里的标志位变化。"}}, nil
}

func resultKVs(r *Result, wc verbs.WC) []KV {
	kv := []KV{{"notified by", r.Via.String()}, {"notice", r.Notice}, {"buffer", r.Message}}
	if wc.Opcode == verbs.WCRecvRDMAWithImm {
		kv = append(kv, KV{"byte_len", fmt.Sprint(wc.ByteLen)})
	}
	return kv
}

// cString returns b up to its first NUL, as printf("%s") would.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return strings.ToValidUTF8(string(b), "?")
}

func stepDisconnect(ctx context.Context, s *Session) (Outcome, error) {
	if !s.peerHungUp() {
		// The peer may have hung up first (both sides disconnect at the
		// end of the tour): look for its DREQ before sending ours.
		s.checkPeerGone(ctx)
	}
	peerFirst := s.peerHungUp()
	// rdma_disconnect is also how a side answers the peer's DREQ (with a
	// DREP): without it the peer waits for its DREQ to time out.
	err := s.id.Disconnect()
	s.set(func() { s.disconnected = true })
	if err != nil && !peerFirst {
		return Outcome{Call: "rdma_disconnect(id) = -1"}, err
	}
	state := s.recordQPState()
	if peerFirst {
		s.sent("DREP", "")
		return Outcome{Call: "rdma_get_cm_event(ec, &event) = 0  /* RDMA_CM_EVENT_DISCONNECTED: the peer hung up first */\nrdma_disconnect(id) = 0  /* answers with a DREP */",
			Results: []KV{{"event", verbs.EventDisconnected.String()}, {"QP state", state}},
			Note: Text{"The peer disconnected first; rdma_disconnect here answers its DREQ so it need not wait for a timeout.",
				"对端先断开了；这里调用 rdma_disconnect 是为了回应它的 DREQ（发 DREP），免得对端一直等到超时。"}}, nil
	}
	s.sent("DREQ", "")
	return Outcome{Call: "rdma_disconnect(id) = 0", Results: []KV{{"QP state", state}},
		Note: Text{"rdma_disconnect moved the QP to ERR (anything still queued is flushed) and sent a DREQ. RDMA_CM_EVENT_DISCONNECTED comes when the peer answers with its own rdma_disconnect.",
			"rdma_disconnect 把 QP 置为 ERR（队列里剩下的 WR 都会被 flush），并发出 DREQ。等对端也调用 rdma_disconnect 应答之后，才会收到 RDMA_CM_EVENT_DISCONNECTED。"}}, nil
}

func stepTeardown(ctx context.Context, s *Session) (Outcome, error) {
	// Show the peer's answer to our DREQ if it came (never wait for it:
	// destroying the id is fine either way).
	var events string
	if s.ec != nil && s.disconnected && !s.peerHungUp() {
		pctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		if ev, err := s.ec.GetEvent(pctx); err == nil {
			s.setEvent(ev)
			if ev.Type == verbs.EventDisconnected {
				s.got("DREP", "")
			}
			events = "rdma_get_cm_event(ec, &event) = 0  /* " + ev.Type.String() + " */; rdma_ack_cm_event(event)\n"
		}
		cancel()
	}
	calls, err := s.teardown()
	calls = events + calls
	live := s.cfg.Provider.Live()
	return Outcome{Call: calls, Results: []KV{{"live objects left", fmt.Sprint(live.Total())}},
		Note: Text{"Children before parents: QP, MRs, CQ, PD, id, channel. (The seed forgets ibv_destroy_cq.)",
			"先子后父：QP、MR、CQ、PD、id、channel。（seed 漏掉了 ibv_destroy_cq。）"}}, err
}
