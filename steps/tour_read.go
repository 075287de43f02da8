package steps

import (
	"context"
	"fmt"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The read tour (--tour read): the server puts its own message into its
// registered buffer before accepting (the MR already allows REMOTE_READ),
// and the client fetches it with one RDMA READ. No notification: a READ's
// completion at the client means the bytes are in the client's memory.

// ServerReadMessage is what the server of the read tour puts in its buffer.
const ServerReadMessage = "hello from rdmatour server, fetched by RDMA READ"

// WRIDRead is the READ's wr_id.
const WRIDRead = 400

// readTour is the read tour's table: the RC skeleton with the server's
// message put in its buffer, and one READ where the write tour writes.
func readTour() rcTour {
	return rcTour{kind: TourRead, clientHangsUpAfter: IDGetEstablished,
		afterData: func(role Role) []Step {
			if role != Server {
				return nil
			}
			return []Step{{ID: IDPutMessage, Side: Server, Section: SectionMRs,
				Title: text.Text{EN: "Put the server's message in the buffer", ZH: "把 server 的消息放进 buffer"},
				Call:  fmt.Sprintf("snprintf(buf, BUF_SIZE, \"%%s\", %q);", ServerReadMessage), run: stepPutMessage}}
		},
		data: func(role Role) []Step {
			if role == Server {
				return []Step{{ID: IDWaitDisconnected, Side: Server, Section: SectionQP, Waits: true, Milestones: MilestoneLanded, After: []StepID{IDDisconnect},
					Title: text.Text{EN: "Wait while the client READs", ZH: "等 client 来 READ"},
					Call:  waitEventGeneric(verbs.EventDisconnected), run: stepWaitDisconnected}}
			}
			return []Step{
				{ID: IDPostRead, Side: Client, Section: SectionData, After: []StepID{IDGetEstablished},
					Title: text.Text{EN: "RDMA READ the server's buffer", ZH: "RDMA READ 读取 server 的 buffer"},
					Call:  postSendGeneric(verbs.WRRDMARead, "buf", ""), run: stepPostRead},
				{ID: IDPollRead, Side: Client, Section: SectionCQ, Waits: true,
					Title: text.Text{EN: "Poll the READ's completion and show the data", ZH: "轮询 READ 的完成，显示读到的数据"},
					Call:  "ibv_poll_cq(cq, 1, &wc);", run: stepPollRead},
			}
		}}
}

func stepPutMessage(_ context.Context, s *Session) (Outcome, error) {
	msg := append([]byte(ServerReadMessage), 0)
	fill := c.S(c.Call("snprintf", c.C("buf"), c.Dec(BufSize, "BUF_SIZE"), c.Str("%s"), c.Str(ServerReadMessage)))
	if err := s.mrData.Write(0, msg[:min(len(msg), s.mrData.Len())]); err != nil { // a shorter MR (reg-mr-data.length) holds its start
		return withC(Outcome{}, fill), err
	}
	return withC(Outcome{Results: []KV{result(resBuffer, ServerReadMessage), result(resBytes, fmt.Sprint(len(msg))), result(resAccess, s.mrData.Access().String())},
		Note: text.Text{EN: "The CPU writes the message into the registered buffer before accepting; the MR allows IBV_ACCESS_REMOTE_READ, so the client's NIC may fetch it with the rkey handed out in remote_info.",
			ZH: "CPU 在 accept 之前把消息写进已注册的 buffer；这个 MR 带 IBV_ACCESS_REMOTE_READ，所以 client 的网卡可以凭 remote_info 里交出去的 rkey 来读。"}},
		fill.Returned(fmt.Sprint(len(msg)-1))), nil
}

func stepPostRead(_ context.Context, s *Session) (Outcome, error) {
	info, t := s.remoteBuffer()
	n := min(info.Size, uint32(BufSize))
	wr := verbs.SendWR{WRID: WRIDRead, Opcode: verbs.WRRDMARead, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: s.mrData.Addr(), Length: n, LKey: s.mrData.LKey()}}, RemoteAddr: info.Addr, RKey: info.RKey}
	call := postSendCall(wr, "buf", c.Dec(int64(n), "size"), t, "ibv_post_send RDMA_READ")
	if err := s.qp.PostSend(wr); err != nil {
		return withC(Outcome{}, postFailed(call, err)), err
	}
	a, _ := s.qp.Query()
	s.sentText("RDMA_READ_REQUEST", text.Text{EN: fmt.Sprintf("%d B from 0x%x, no data in it", n, info.Addr), ZH: fmt.Sprintf("从 0x%x 读 %d 字节，请求本身不带数据", info.Addr, n)})
	return withC(Outcome{Results: []KV{result(resBytes, fmt.Sprint(n)), result(resFrom, fmt.Sprintf("0x%x rkey 0x%x", info.Addr, info.RKey)),
		result(resMaxRdAtomic, fmt.Sprint(a.MaxRdAtomic))},
		Note: text.Text{EN: "One small request packet goes out; the server's NIC answers with response packets that carry the data back (one per path MTU). How many READs may be outstanding is max_rd_atomic, set from the responder_resources the server accepted with.",
			ZH: "发出去的只是一个很小的请求包；server 的网卡用响应包把数据带回来（每个路径 MTU 一个包）。同时能有几个 READ 在路上由 max_rd_atomic 决定，它来自 server 在 accept 时给出的 responder_resources。"}},
		call.Returned("0")), nil
}

func stepPollRead(ctx context.Context, s *Session) (Outcome, error) {
	out, err := s.pollStep(ctx, "RDMA_READ completion", verbs.WCRDMARead)
	if err != nil {
		return out, err
	}
	s.gotText("RDMA_READ_RESPONSE", readResponseDetail(s))
	data, err := s.mrData.Read(0, s.dataLen())
	if err != nil {
		return out, err
	}
	msg := cString(data)
	s.set(func() {
		s.result = &Result{Tour: TourRead, Message: msg, Summary: text.Text{
			EN: fmt.Sprintf("The client's buffer holds \"%s\": its RDMA READ fetched it from the server's memory, and the server's CPU took no part.", msg),
			ZH: fmt.Sprintf("client 的 buffer 里现在是 \"%s\"：它是 client 用 RDMA READ 从 server 内存里取来的，server 的 CPU 没有参与。", msg)}}
	})
	out = withC(out, c.S(c.Call("printf", c.Str("%s\n"), c.C("buf"))).Returned(fmt.Sprintf("prints %s", msg)))
	out.Results = append(out.Results, result(resBuffer, msg.String()))
	out.Note = text.Text{EN: "Unlike a WRITE's completion, a READ's completion says the data is in this side's memory: the program may read buf now. The server's CPU did nothing and got no completion.",
		ZH: "和 WRITE 的完成不同，READ 的完成表示数据已经在本端内存里了：程序现在就可以读 buf。server 的 CPU 什么都没做，也没有收到任何完成。"}
	return out, nil
}

// stepWaitDisconnected is the read tour's server: nothing to poll (a READ
// leaves no completion at the responder), so it waits for the client to
// hang up, watching the CM channel.
func stepWaitDisconnected(ctx context.Context, s *Session) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	get := getEvent(verbs.CMEvent{Type: verbs.EventDisconnected}, verbs.EventDisconnected, true)
	for !s.peerHungUp() {
		s.answeredOps() // tally the packets while the device's window still holds them
		if err := s.checkPeerGoneWithin(ctx, 100*time.Millisecond); err != nil && !s.peerHungUp() {
			return withC(Outcome{}, get), err
		}
		if ctx.Err() != nil {
			return withC(Outcome{}, get), fmt.Errorf("waiting for the client to finish its READ: %w", ctx.Err())
		}
	}
	data, err := s.mrData.Read(0, s.dataLen())
	if err != nil {
		return Outcome{}, err
	}
	out := withC(Outcome{Results: []KV{result(resEvent, verbs.EventDisconnected.String()), result(resBuffer, cString(data).String())}}, get, ackEvent())
	if s.cfg.Tour != TourRead {
		return out, nil // the atomic server's wait says what it saw
	}
	ops, seen := s.answeredOps()
	summary := readSummary(ops, seen)
	out.Note = joinNotes(summary, text.Text{EN: "A READ leaves the server nothing to see: no completion, no interrupt, the buffer is unchanged.",
		ZH: "READ 在 server 这边什么都不留下：没有完成，没有中断，buffer 也没变。"})
	if seen {
		out.Results = append(out.Results, result(resREADsAnswered, fmt.Sprint(ops.reads)))
	}
	if seen && ops.reads == 0 && s.followsPlan() {
		return out, peerSkipped(0, 1, text.Text{EN: "READ", ZH: "READ"})
	}
	s.set(func() { s.result = &Result{Tour: TourRead, Message: cString(data), Summary: summary} })
	return out, nil
}

// tourMismatchEffect says what happens on this side (role, running mine)
// when the peer runs the other tour: the write and read tours share the
// connection setup, so they connect; then the one remote operation the
// client tries is one the server's buffer was not registered for (each
// tour's server grants only its own tour's right: TourDef.DataAccess).
func tourMismatchEffect(role Role, mine, theirs TourKind) text.Text {
	switch {
	case role == Client && mine == TourRead && theirs == TourWrite:
		return text.Text{EN: "This side's READ fails with remote access error: the write tour's server registers its buffer with REMOTE_WRITE only. The notification the server waits for never comes.",
			ZH: "本端的 READ 会以 remote access error 失败：write 教程的 server 注册 buffer 时只给了 REMOTE_WRITE。server 等的通知永远不会来。"}
	case role == Server && mine == TourRead && theirs == TourWrite:
		return text.Text{EN: "The client's WRITE fails with remote access error: this side's buffer allows REMOTE_READ only, so the message this side put there stays. This side only waits for the client to hang up.",
			ZH: "client 的 WRITE 会以 remote access error 失败：本端的 buffer 只允许 REMOTE_READ，所以本端放进去的消息不会被覆盖。本端只等 client 断开。"}
	case role == Client && mine == TourWrite && theirs == TourRead:
		return text.Text{EN: "This side's WRITE fails with remote access error: the read tour's server registers its buffer with REMOTE_READ only. The server waits for no notification.",
			ZH: "本端的 WRITE 会以 remote access error 失败：read 教程的 server 注册 buffer 时只给了 REMOTE_READ。server 也不等任何通知。"}
	case role == Server && mine == TourWrite && theirs == TourRead:
		return text.Text{EN: "The client's READ fails with remote access error: this side's buffer allows REMOTE_WRITE only. The client writes nothing, so the notification this side waits for never comes.",
			ZH: "client 的 READ 会以 remote access error 失败：本端的 buffer 只允许 REMOTE_WRITE。client 什么都不写，所以本端等的通知永远不会来。"}
	}
	return text.Text{EN: fmt.Sprintf("The %s tour and the %s tour do not fit together.", mine, theirs),
		ZH: fmt.Sprintf("%s 教程和 %s 教程对不上。", mine, theirs)}
}

// readResponseDetail says what the READ's responses carried back: the
// length the request asked for, in one packet per path MTU.
func readResponseDetail(s *Session) text.Text {
	s.mu.Lock()
	n := int(min(s.remote.Info.Size, uint32(BufSize)))
	s.mu.Unlock()
	a, err := s.qp.Query()
	if err != nil || a.PathMTU <= 0 {
		return text.Text{EN: fmt.Sprintf("%d B of data back into buf", n), ZH: fmt.Sprintf("带回 %d 字节数据，写进 buf", n)}
	}
	pkts := (n + a.PathMTU - 1) / a.PathMTU
	return text.Text{EN: fmt.Sprintf("%d B of data back into buf (%d response packets, path MTU %d)", n, pkts, a.PathMTU),
		ZH: fmt.Sprintf("带回 %d 字节数据，写进 buf（%d 个响应包，路径 MTU %d）", n, pkts, a.PathMTU)}
}

func readTourDef() TourDef {
	return TourDef{Kind: TourRead, Name: "read", DataAccess: verbs.AccessLocalWrite | verbs.AccessRemoteRead, ReadSink: true,
		build: func(role Role, _ Notify, _ Track) []Step { return readTour().steps(role, cmTrack()) }, tools: readTools}
}

// readTools: perftest's READ bandwidth; rping READs too.
func readTools(a ToolArgs) []ToolCommand {
	return []ToolCommand{
		perftest("ib_read_bw", a, text.Text{EN: "RDMA READ bandwidth over an rdma_cm connection", ZH: "基于 rdma_cm 连接的 RDMA READ 带宽"}, "-s", fmt.Sprint(a.Size)),
		rping(a, false),
	}
}
