package steps

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The rdma_cm steps: event channel, ids, addresses and routes, the
// connection handshake, disconnect and teardown.

// Each step function makes its call(s), publishes the resources it made and returns the C it executed with the actual values.

func stepCreateEventChannel(_ context.Context, s *Session) (Outcome, error) {
	call := createEventChannelCall()
	ec, err := s.cfg.Provider.CreateEventChannel()
	if err != nil {
		return withC(Outcome{}, failed(call, err)), problem(err,
			text.Text{EN: "could not open the RDMA CM (rdma_create_event_channel failed)", ZH: "无法打开 RDMA CM（rdma_create_event_channel 失败）"},
			text.Text{EN: "run `rdmatour doctor`: rdma_ucm must be loaded and /dev/infiniband/rdma_cm readable", ZH: "运行 `rdmatour doctor`：需要加载 rdma_ucm，且 /dev/infiniband/rdma_cm 可读"})
	}
	s.set(func() { s.ec = ec })
	fd := "fd=" + fmt.Sprint(ec.FD())
	shown := text.Same(fd)
	if ec.FD() < 0 {
		fd, shown = "simulated", valSimulated
	}
	return withC(Outcome{
		Results: []KV{{Name: resEc, Value: shown}},
		Note:    text.Text{EN: "CM events (address resolved, connect request, established, ...) will arrive on this channel.", ZH: "之后所有 CM 事件（地址解析完成、连接请求、连接建立……）都从这个通道取。"},
	}, call.Returned("{ .fd = "+strings.TrimPrefix(fd, "fd=")+" }")), nil
}

func stepCreateID(_ context.Context, s *Session) (Outcome, error) {
	id, err := s.ec.CreateID(verbs.PSTCP)
	name := "id"
	if s.cfg.Role == Server {
		name = "listener"
	}
	call := createIDCall(name)
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
	return withC(Outcome{Results: []KV{KV{Name: resPortSpace, Value: valPSTCP}},
		Note: text.Text{EN: "The id is not bound to any device yet: id->verbs is NULL.", ZH: "这个 id 还没有绑定到任何设备：id->verbs 仍是 NULL。"}}, call.Returned("0")), nil
}

func stepBindAddr(_ context.Context, s *Session) (Outcome, error) {
	call := bindAddrCall(s.cfg.Bind)
	if err := s.listener.BindAddr(s.cfg.Bind); err != nil {
		return withC(Outcome{}, failed(call, err)), ExplainBind(err, s.cfg.Bind)
	}
	local := s.listener.LocalAddr()
	dev := "NULL (no RDMA device owns this address — wildcard or loopback: the device is known per connection)"
	if d := s.listener.Device(); d != nil {
		dev = d.Info().Name
	}
	return withC(Outcome{Results: []KV{result(resBoundTo, local.String()), result(resListenerVerbs, dev)}}, call.Returned("0")), nil
}

func stepListen(_ context.Context, s *Session) (Outcome, error) {
	call := listenCall()
	if err := s.listener.Listen(1); err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	// From here a second client may knock: the gate turns it away at
	// once while this tour serves the first (gate.go).
	s.startGate()
	return withC(Outcome{
		Results: []KV{result(resListeningOn, s.listener.LocalAddr().String())},
		Note:    s.listenNote()}, call.Returned("0"),
		c.S(c.C(`printf("[server] listening on port %s\n", port)`)).Only(c.ExportOnly)), nil
}

// waitEvent gets the next CM event, failing with a learner-level
// explanation if it is not the one the tour expects.
func (s *Session) waitEvent(ctx context.Context, want verbs.CMEventType, timeout time.Duration) (verbs.CMEvent, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ev, err := s.getEvent(ctx)
	if err != nil {
		return ev, fmt.Errorf("rdma_get_cm_event waiting for %s: %w", want, err)
	}
	s.setEvent(ev)
	if ev.Type == want {
		return ev, nil
	}
	return ev, explainEvent(ev, want, s.cfg, s.peerAddr())
}

func stepGetConnectRequest(ctx context.Context, s *Session) (Outcome, error) {
	ev, err := s.waitEvent(ctx, verbs.EventConnectRequest, s.cfg.AcceptTimeout)
	if errors.Is(err, context.DeadlineExceeded) {
		err = problem(err, text.Text{EN: fmt.Sprintf("no client connected within %v", s.cfg.AcceptTimeout), ZH: fmt.Sprintf("%v 内没有 client 连上来", s.cfg.AcceptTimeout)},
			text.Text{EN: "start the client, or raise --wait-client (0 waits forever)", ZH: "启动 client，或调大 --wait-client（0 表示一直等）"})
	}
	if err != nil {
		return withC(Outcome{}, getEvent(ev, verbs.EventConnectRequest, gotEvent(err))), err
	}
	id := ev.ID
	s.set(func() { s.id = id; s.useDevice(id.Device()) })
	s.gotText("REQ", text.Text{EN: fmt.Sprintf("qpn=0x%x, %d B private data", ev.QPNum, len(ev.PrivateData)),
		ZH: fmt.Sprintf("qpn=0x%x，private data %d 字节", ev.QPNum, len(ev.PrivateData))})
	peer, mismatch := s.learnPeerTour(ev.PrivateData)
	iw, err := s.onIWARP(id.Device())
	return withC(Outcome{
		Results: []KV{result(resEvent, ev.Type.String()), result(resFrom, id.PeerAddr().String()), result(resIdVerbs, devName(id.Device())),
			result(resClientQPN, fmt.Sprintf("0x%x", ev.QPNum)), result(resInitiatorDepth, fmt.Sprint(ev.InitiatorDepth)), result(resResponderResources, fmt.Sprint(ev.ResponderResources)), peer},
		Note: joinNotes(joinNotes(text.Text{EN: "event->id is a NEW cm id for this connection, already bound to the device the request came in on; the listener keeps listening.",
			ZH: "event->id 是为这条连接新建的 cm id，已绑定到请求到达的那块设备；listener 继续监听。"}, mismatch), iw),
	}, getEvent(ev, verbs.EventConnectRequest, true), c.S(c.Assign("id", c.C("event->id"))), ackEvent()), err
}

// gotEvent says whether waitEvent's error came with an event (one the
// tour did not expect) rather than instead of one.
func gotEvent(err error) bool {
	var ce *CMEventError
	return err == nil || errors.As(err, &ce)
}

func devName(d verbs.Device) string {
	if d == nil {
		return "NULL"
	}
	return d.Info().Name
}

func stepResolveAddr(ctx context.Context, s *Session) (Outcome, error) {
	var src netip.AddrPort
	if s.cfg.Src.IsValid() {
		src = netip.AddrPortFrom(s.cfg.Src, 0)
	}
	dst, note := s.cfg.Server, text.Text{}
	if m := s.mistake(); m.Resolve != nil {
		dst, note = m.Resolve(s.cfg.Provider, dst)
	}
	call := resolveAddrCall(s.cfg.Src, dst)
	if err := s.id.ResolveAddr(src, dst, ResolveTimeout); err != nil {
		return withC(Outcome{}, failed(call, err)), problem(err, text.Text{EN: "rdma_resolve_addr refused the address", ZH: "rdma_resolve_addr 不接受这个地址"},
			text.Text{EN: "check the server address (and --src)", ZH: "检查 server 地址（以及 --src）"})
	}
	ev, err := s.waitEvent(ctx, verbs.EventAddrResolved, s.cfg.Timeout)
	if err != nil {
		return withC(Outcome{}, call.Returned("0"), getEvent(ev, verbs.EventAddrResolved, gotEvent(err))), err
	}
	dev := s.id.Device()
	s.set(func() { s.useDevice(dev) })
	iw, err := s.onIWARP(dev)
	out := Outcome{
		Results: []KV{result(resEvent, ev.Type.String()), result(resIdVerbs, devName(dev)), result(resPort, fmt.Sprint(s.id.PortNum())), result(resLocal, s.id.LocalAddr().String())},
		Note:    joinNotes(joinNotes(text.Text{EN: "The id is now bound to the RDMA device that can reach the server; PD, CQ and QP are created on it.", ZH: "这个 id 现在绑定到了能到达 server 的 RDMA 设备上；PD、CQ、QP 都要建在它上面。"}, note), iw),
	}
	return withC(out, call.Returned("0"), getEvent(ev, verbs.EventAddrResolved, true), ackEvent()), err
}

func stepAccept(_ context.Context, s *Session) (Outcome, error) {
	info := s.localRemoteInfo()
	buf, mr := "buf", "mr"
	if s.sharedCounter != nil {
		buf, mr = "counter", "counter_mr" // the room's shared counter
	}
	addrC := c.Call("htobe64", c.Hex(info.Addr, "(uintptr_t)"+buf))
	if m := s.mistake(); m.Advertise != nil {
		t := m.Advertise(Target{Addr: info.Addr, AddrC: addrC, RKey: info.RKey})
		info.Addr, addrC = t.Addr, t.AddrC
	}
	raw := info.Marshal()
	p := s.acceptParam(false)
	p.PrivateData = append(append([]byte(nil), raw...), s.myHello()...)
	fill := remoteInfoC(info, addrC, mr)
	y := s.editConnParam(IDAccept, &p)
	call := acceptCall(p, false, y)
	s.markRNRBaseline() // before any SEND can arrive: the no-recv lesson counts RNR NAKs from here
	if err := s.id.Accept(p); err != nil {
		return withC(Outcome{}, fill, failed(call, err)), s.acceptFailed(err)
	}
	s.set(func() { s.remote = &RemoteState{Info: info, Raw: raw} })
	s.sent("REP", fmt.Sprintf("remote_info: addr=0x%x rkey=0x%x", info.Addr, info.RKey))
	state := s.recordQPState()
	out := Outcome{
		Results: []KV{result(resPrivateData, fmt.Sprintf("% x", raw)), s.helloSentKV(), result(resQPState, state)},
		Note:    joinNotes(text.Text{EN: "librdmacm moved the QP to RTR and RTS before sending the REP.", ZH: "librdmacm 在发出 REP 之前已把 QP 推到 RTR 和 RTS。"}, helloNote)}
	if s.sharedCounter != nil {
		out.Results = append(out.Results, KV{Name: resCounter, Value: text.Text{EN: fmt.Sprintf("the room's, shared: 0x%x rkey 0x%x", info.Addr, info.RKey),
			ZH: fmt.Sprintf("整个教室共用的：0x%x rkey 0x%x", info.Addr, info.RKey)}})
		out.Note = joinNotes(sharedCounterNote, out.Note)
	}
	return withC(out, fill, call.Returned("0")), nil
}

func stepConnect(_ context.Context, s *Session) (Outcome, error) {
	p := s.connectParam(false)
	y := s.editConnParam(IDConnect, &p)
	call := connectCall(p, false, y)
	if err := s.id.Connect(p); err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	s.sent("REQ", fmt.Sprintf("qpn=0x%x", s.qp.Num()))
	return withC(Outcome{Results: []KV{result(resSent, "CM REQ"), s.helloSentKV()},
		Note: joinNotes(text.Text{EN: "rdma_connect only sends the request; the answer comes as an event.", ZH: "rdma_connect 只是把请求发出去，结果以事件的形式返回。"}, helloNote)}, call.Returned("0")), nil
}

func stepResolveRoute(ctx context.Context, s *Session) (Outcome, error) {
	call := resolveRouteCall()
	if err := s.id.ResolveRoute(ResolveTimeout); err != nil {
		return withC(Outcome{}, failed(call, err)), err
	}
	ev, err := s.waitEvent(ctx, verbs.EventRouteResolved, s.cfg.Timeout)
	if err != nil {
		return withC(Outcome{}, call.Returned("0"), getEvent(ev, verbs.EventRouteResolved, gotEvent(err))), err
	}
	return withC(Outcome{Results: []KV{result(resEvent, ev.Type.String())}},
		call.Returned("0"), getEvent(ev, verbs.EventRouteResolved, true), ackEvent()), nil
}

func stepGetEstablished(ctx context.Context, s *Session) (Outcome, error) {
	ev, err := s.waitEvent(ctx, verbs.EventEstablished, s.peerWaitBound())
	get := getEvent(ev, verbs.EventEstablished, gotEvent(err))
	if err != nil {
		return withC(Outcome{}, get), err
	}
	s.set(func() { s.connected = true })
	out := withC(Outcome{}, get)
	if s.cfg.Role == Server {
		s.got("RTU", "")
		state := s.recordQPState()
		out = withC(out, ackEvent(), c.S(c.C(`printf("[server] connected\n")`)).Only(c.ExportOnly))
		out.Results = []KV{result(resEvent, ev.Type.String()), result(resQPState, state)}
		out.Note = s.establishedNote()
		return out, nil
	}
	s.gotText("REP", text.Text{EN: fmt.Sprintf("%d B private data", len(ev.PrivateData)), ZH: fmt.Sprintf("private data %d 字节", len(ev.PrivateData))})
	s.sent("RTU", "")
	info, perr := privdata.ParseRemoteInfo(ev.PrivateData)
	if perr != nil {
		return out, problem(perr, text.Text{EN: "the server sent no remote_info: it is not an rdmatour/seed server", ZH: "server 没有发来 remote_info：它不是 rdmatour/seed 的 server"}, text.Text{})
	}
	raw := append([]byte(nil), ev.PrivateData...)
	s.set(func() { s.remote = &RemoteState{Info: info, Raw: raw} })
	peer, mismatch := s.learnPeerTour(ev.PrivateData[privdata.RemoteInfoSize:])
	state := s.recordQPState()
	out = withC(out, append(readRemoteInfo(info, len(ev.PrivateData)), ackEvent(),
		c.S(c.C(`printf("[client] connected: remote addr=0x%" PRIx64 " rkey=0x%" PRIx32 " size=%" PRIu32 "\n", remote_addr, rkey, size)`)).Only(c.ExportOnly))...)
	out.Results = []KV{result(resEvent, ev.Type.String()), result(resPrivateDataLen, fmt.Sprint(len(ev.PrivateData))),
		result(resRemoteAddr, fmt.Sprintf("0x%x", info.Addr)), result(resRemoteRkey, fmt.Sprintf("0x%x", info.RKey)), result(resRemoteSize, fmt.Sprint(info.Size)),
		result(resDoorbellAddr, fmt.Sprintf("0x%x", info.DoorbellAddr)), result(resDoorbellRkey, fmt.Sprintf("0x%x", info.DoorbellRKey)), result(resQPState, state), peer}
	out.Note = joinNotes(text.Text{EN: "librdmacm moved the QP to RTR and RTS and sent the RTU while handling this event. remote_info is the first 32 bytes of the private data.",
		ZH: "librdmacm 在处理这个事件时把 QP 推到了 RTR、RTS 并发出 RTU。remote_info 就是 private data 的前 32 字节。"}, mismatch)
	return out, nil
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
	return s.checkPeerGoneWithin(ctx, time.Millisecond)
}

// checkPeerGoneWithin is checkPeerGone giving the event up to d to arrive.
func (s *Session) checkPeerGoneWithin(ctx context.Context, d time.Duration) error {
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	ev, err := s.getEvent(pctx)
	if err != nil {
		return nil // nothing pending
	}
	s.setEvent(ev)
	if ev.Type == verbs.EventDisconnected || ev.Type == verbs.EventDeviceRemoval {
		s.set(func() { s.disconnected, s.peerDREQ = true, true })
		s.got("DREQ", "")
		return peerLeftEarly(ev.Type, ev.Status)
	}
	return nil
}

func stepDisconnect(ctx context.Context, s *Session) (Outcome, error) {
	// An earlier step (the read and atomic servers' wait) may have taken
	// and shown the DISCONNECTED event already: showing it again would
	// be a second rdma_get_cm_event, which blocks in a real program.
	takenEarlier := s.peerHungUp()
	if !takenEarlier {
		// The peer may have hung up first (both sides disconnect at the
		// end of the tour): look for its DREQ before sending ours.
		s.checkPeerGoneWithin(ctx, s.hangupGrace())
	}
	peerFirst := s.peerHungUp()
	// rdma_disconnect is also how a side answers the peer's DREQ (with a
	// DREP): without it the peer waits for its DREQ to time out.
	call := disconnectCall()
	err := s.id.Disconnect()
	s.set(func() { s.disconnected = true })
	if err != nil && !peerFirst {
		return withC(Outcome{}, failed(call, err)), err
	}
	state := s.recordQPState()
	if peerFirst {
		s.sent("DREP", "")
		var calls []c.Stmt
		if !takenEarlier {
			calls = []c.Stmt{getEvent(verbs.CMEvent{Type: verbs.EventDisconnected}, verbs.EventDisconnected, true).Only(c.ScreenOnly),
				ackEvent().Only(c.ScreenOnly)}
		}
		return withC(Outcome{
			Results: []KV{result(resEvent, verbs.EventDisconnected.String()), result(resQPState, state)},
			Note: text.Text{EN: "The peer disconnected first; rdma_disconnect here answers its DREQ so it need not wait for a timeout.",
				ZH: "对端先断开了；这里调用 rdma_disconnect 是为了回应它的 DREQ（发 DREP），免得对端一直等到超时。"}},
			append(append(s.hangupWait(takenEarlier), calls...), call.Returned("0: answers with a DREP"))...), nil
	}
	s.sent("DREQ", "")
	return withC(Outcome{Results: []KV{result(resQPState, state)},
		Note: text.Text{EN: "rdma_disconnect moved the QP to ERR (anything still queued is flushed) and sent a DREQ. RDMA_CM_EVENT_DISCONNECTED comes when the peer answers with its own rdma_disconnect.",
			ZH: "rdma_disconnect 把 QP 置为 ERR（队列里剩下的 WR 都会被 flush），并发出 DREQ。等对端也调用 rdma_disconnect 应答之后，才会收到 RDMA_CM_EVENT_DISCONNECTED。"}},
		append(s.hangupWait(takenEarlier), call.Returned("0: sends a DREQ"))...), nil
}

func stepTeardown(ctx context.Context, s *Session) (Outcome, error) {
	// Show the peer's answer to our DREQ if it comes soon (never wait
	// long: destroying the id is fine either way). A quarter second lets
	// a peer on a loaded machine answer; a vanished one costs only that.
	var events []c.Stmt
	if s.ec != nil && s.disconnected && !s.peerHungUp() {
		pctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
		if ev, err := s.getEvent(pctx); err == nil {
			s.setEvent(ev)
			if ev.Type == verbs.EventDisconnected {
				s.got("DREP", "")
			}
			// The program does not wait for it.
			events = []c.Stmt{getEvent(ev, ev.Type, true).Only(c.ScreenOnly), ackEvent().Only(c.ScreenOnly)}
		}
		cancel()
	}
	return s.releaseAll(text.Text{EN: "Children before parents: QP, MRs, CQ, PD, id, channel. (The seed forgets ibv_destroy_cq.)",
		ZH: "先子后父：QP、MR、CQ、PD、id、channel。（seed 漏掉了 ibv_destroy_cq。）"}, events...)
}
