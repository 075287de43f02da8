package steps

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The data path steps: post receives and sends, poll completions, and the
// server's wait for the client's notification.

// seedRecvWR is the server's one RECV, into recv_buf (registered as mr).
func seedRecvWR(mr verbs.MR) verbs.RecvWR {
	return verbs.RecvWR{WRID: WRIDRecv, SGList: []verbs.SGE{{Addr: mr.Addr(), Length: MsgBufSize, LKey: mr.LKey()}}}
}

func stepPostRecv(_ context.Context, s *Session) (Outcome, error) {
	wr, call := s.recvCall()
	if err := s.qp.PostRecv(wr); err != nil {
		return withC(Outcome{}, postFailed(call, err)), err
	}
	return withC(Outcome{Results: []KV{KV{Name: resReceiveQueue, Value: valOneRecvPosted}},
		Note: text.Text{EN: "Posted before rdma_accept, so a SEND (or WRITE_WITH_IMM) arriving right after ESTABLISHED finds a buffer.", ZH: "在 rdma_accept 之前 post，这样连接一建立就到达的 SEND（或 WRITE_WITH_IMM）也有 buffer 可用。"}}, call.Returned("0")), nil
}

// writeWR builds the seed's post_rdma_write_raw work request.
func writeWR(op verbs.WROpcode, wrID uint64, local verbs.MR, length uint32, raddr uint64, rkey uint32) verbs.SendWR {
	return verbs.SendWR{WRID: wrID, Opcode: op, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: local.Addr(), Length: length, LKey: local.LKey()}}, RemoteAddr: raddr, RKey: rkey}
}

// writeCall is the client's data WRITE as it will be posted: the
// message, where it goes (the lesson's mistake, the learner's edits), the
// WR and its C. Building it changes nothing, so the C shown before the
// step runs is built the same way (editpreview.go).
type writeCall struct {
	msg        []byte
	info       privdata.RemoteInfo
	t          Target
	wr         verbs.SendWR
	fill, call c.Stmt
}

func (s *Session) buildWrite(step StepID, op verbs.WROpcode) writeCall {
	msg, cfg := s.cfg.messageBytes(), s.cfg
	if text, ok := s.editText(step, "message", cfg.Message); ok {
		cfg.Message, cfg.MessageSize = text, 0
		msg = cfg.messageBytes()
	}
	s.mu.Lock()
	var info privdata.RemoteInfo
	known := s.remote != nil
	if known {
		info = s.remote.Info
	}
	s.mu.Unlock()
	t := Target{Addr: info.Addr, AddrC: c.Hex(info.Addr, "remote_addr"), RKey: info.RKey, RKeyC: c.Hex(uint64(info.RKey), "rkey")}
	if !known { // moved before rdma_connect (editmove.go): no remote_info yet
		t.AddrC, t.RKeyC = c.Hex(0, "0"), c.Hex(0, "0")
	}
	if m := s.mistake(); m.Write != nil {
		t = m.Write(t, info.Size, s.mrData, len(msg))
	}
	t = s.editTarget(step, t, s.mrData.LKey())
	wr, length := s.editedWriteWR(step, op, uint32(len(msg)), &t)
	fill := messageFill(cfg)
	if t.Why != "" {
		fill = fill.Returned(fmt.Sprint(len(msg)-1) + "; " + t.Why)
	}
	what := "ibv_post_send RDMA_WRITE"
	if wr.Opcode != op {
		what = "ibv_post_send " + strings.TrimPrefix(wr.Opcode.String(), "IBV_WR_")
	}
	return writeCall{msg: msg, info: info, t: t, wr: wr, fill: fill, call: postSendCall(wr, "buf", length, t, what)}
}

// writeStep is the step and opcode of the data WRITE (with IMM or not).
func writeStep(withImm bool) (StepID, verbs.WROpcode) {
	if withImm {
		return IDPostWriteImm, verbs.WRRDMAWriteWithImm
	}
	return IDPostWrite, verbs.WRRDMAWrite
}

func (s *Session) postWrite(withImm bool) (Outcome, error) {
	step, op := writeStep(withImm)
	return s.postWriteAs(step, op)
}

// postWriteAs posts the data WRITE as step (the tour's, or a lesson's
// second one), with that step's edits.
func (s *Session) postWriteAs(step StepID, op verbs.WROpcode) (Outcome, error) {
	withImm := op == verbs.WRRDMAWriteWithImm
	w := s.buildWrite(step, op)
	// The program's buffer holds the whole message; an MR the learner
	// made shorter (reg-mr-data.length) covers only its start, and the
	// NIC refuses an SGE past it before it reads a byte.
	if err := s.mrData.Write(0, w.msg[:min(len(w.msg), s.mrData.Len())]); err != nil {
		return Outcome{}, err
	}
	info, t, wr, fill, call := w.info, w.t, w.wr, w.fill, w.call
	inERR := s.postedInERR()
	if wr.Opcode != op {
		s.set(func() { s.writeOp, s.writeOpEdited = wr.Opcode.CompletionOpcode(), true })
	}
	if err := s.qp.PostSend(wr); err != nil {
		return withC(Outcome{}, fill, postFailed(call, err)), err
	}
	label := "RDMA WRITE"
	if withImm {
		label = "RDMA WRITE+IMM"
	}
	n, to := sendBytes(wr), Target{Addr: info.Addr, RKey: info.RKey}
	if t.you != nil {
		to = t // the learner's: where the WRITE really went
	}
	s.sentWR(label, fmt.Sprintf("%d B → 0x%x", n, to.Addr), inERR)
	return withC(Outcome{Results: []KV{result(resBytes, fmt.Sprint(n)), result(resTo, fmt.Sprintf("0x%x rkey 0x%x", to.Addr, to.RKey))},
		Note: text.Text{EN: "Posting returns at once; the NIC moves the bytes. The server's CPU is not involved.", ZH: "post 立即返回，搬数据的是网卡；server 的 CPU 完全不参与。"}}, fill, call.Returned("0")), nil
}

// messageFill is the C that puts cfg's message in buf: snprintf, padding
// with spaces to --message-size when one is given.
func messageFill(cfg Config) c.Stmt {
	if cfg.MessageSize > 0 {
		return c.S(c.Call("snprintf", c.C("buf"), c.Dec(BufSize, "BUF_SIZE"), c.Str("%-*s"), c.Dec(int64(cfg.MessageSize-1), ""), c.Str(cfg.Message)))
	}
	return c.S(c.Call("snprintf", c.C("buf"), c.Dec(BufSize, "BUF_SIZE"), c.Str("%s"), c.Str(cfg.Message)))
}

func stepPostWrite(_ context.Context, s *Session) (Outcome, error) { return s.postWrite(false) }

func stepPostWriteImm(_ context.Context, s *Session) (Outcome, error) { return s.postWrite(true) }

func stepPostSend(_ context.Context, s *Session) (Outcome, error) {
	done, fill, length := s.doneNotice()
	if err := s.mrSend.Write(0, done); err != nil {
		return Outcome{}, err
	}
	wr := verbs.SendWR{WRID: WRIDSend, Opcode: verbs.WRSend, Flags: verbs.SendSignaled,
		SGList: []verbs.SGE{{Addr: s.mrSend.Addr(), Length: uint32(len(done)), LKey: s.mrSend.LKey()}}}
	call := postSendCall(wr, "send_buf", length, Target{}, "ibv_post_send SEND")
	inERR := s.postedInERR()
	s.markSendRNR()
	if err := s.qp.PostSend(wr); err != nil {
		return withC(Outcome{}, append(fill, postFailed(call, err))...), err
	}
	s.sentWR("SEND", DoneText, inERR)
	return withC(Outcome{Results: []KV{result(resBytes, fmt.Sprint(len(done)))},
		Note: text.Text{EN: "A two-sided SEND: it consumes the RECV the server posted before accepting.", ZH: "双边 SEND：它会消耗 server 在 accept 之前 post 的那个 RECV。"}}, append(fill, call.Returned("0"))...), nil
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
	fill := c.S(c.Assign("*doorbell", c.Call("htobe64", c.Dec(DoorbellValue, "DOORBELL_VALUE"))))
	target := Target{AddrC: c.Hex(info.DoorbellAddr, "doorbell_addr"), RKeyC: c.Hex(uint64(info.DoorbellRKey), "doorbell_rkey")}
	call := postSendCall(wr, "doorbell", c.Dec(8, "sizeof *doorbell"), target, "ibv_post_send doorbell")
	inERR := s.postedInERR()
	if err := s.qp.PostSend(wr); err != nil {
		return withC(Outcome{}, fill, postFailed(call, err)), err
	}
	s.sentWR("RDMA WRITE", fmt.Sprintf("doorbell 8 B → 0x%x", info.DoorbellAddr), inERR)
	return withC(Outcome{Results: []KV{result(resTo, fmt.Sprintf("0x%x rkey 0x%x", info.DoorbellAddr, info.DoorbellRKey))},
		Note: text.Text{EN: "Posted after the data WRITE on the same QP.", ZH: "在同一个 QP 上、紧跟数据 WRITE 之后 post。"}}, fill, call.Returned("0")), nil
}

// pollStep waits for one completion and checks it like the seed's poll_one.
func (s *Session) pollStep(ctx context.Context, what string, wantOp verbs.WCOpcode) (Outcome, error) {
	// The NIC's own retry timers end this wait if the peer is gone.
	ctx, cancel := s.boundPeerWait(ctx)
	defer cancel()
	call := pollOne(wantOp, what)
	wc, events, err := s.waitOne(ctx)
	if err != nil {
		return withC(Outcome{}, append(events, call.Returned("0, again and again: no completion came"))...), fmt.Errorf("%s: %w", what, err)
	}
	s.addCompletion(wc)
	state := s.recordQPState()
	out := withC(Outcome{
		Results: []KV{result(resStatus, wc.Status.String()), {Name: resOpcode, Value: opcodeText(wc)}, result(resWrId, fmt.Sprint(wc.WRID)), result(resQPState, state)}},
		append(events, call.Returned(wcText(wc)))...)
	if wc.Status != verbs.WCSuccess {
		s.completionFate(wc)
		return out, &CompletionError{What: what, WC: wc}
	}
	if wc.Opcode == verbs.WCSend {
		s.sendRNRNAKs()
	}
	if wc.Opcode == verbs.WCSend || wc.Opcode == verbs.WCRDMAWrite {
		s.got("ACK", wc.Opcode.String())
	}
	if wc.Opcode != wantOp {
		return out, fmt.Errorf("%s: unexpected completion opcode %s", what, wc.Opcode)
	}
	return out, nil
}

func stepPollWrite(ctx context.Context, s *Session) (Outcome, error) {
	want := verbs.WCRDMAWrite
	s.mu.Lock()
	if s.writeOpEdited {
		want = s.writeOp // the learner's opcode completes as itself
	}
	s.mu.Unlock()
	out, err := s.pollStep(ctx, "RDMA_WRITE completion", want)
	if err == nil {
		out.Note = text.Text{EN: "The completion means the server's NIC acknowledged the WRITE: it accepted the data and places it before anything later on this QP. It does not promise the server's CPU can already read it (see the WRITE's page). The server itself got no completion for a plain WRITE.",
			ZH: "这个完成说明 server 的网卡已经 ACK 了这个 WRITE：它收下了数据，并会在这个 QP 上后续操作之前把数据放好。但这不保证 server 的 CPU 此刻已经读得到（见 WRITE 那一页）。普通 WRITE 在 server 端不会产生任何完成。"}
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
	ctx, cancel := s.boundPeerWait(ctx)
	defer cancel()
	// The program waits in its wait_for_done helper; the screen shows
	// the one path this run took (finishNotify, finishDoorbell).
	wait := c.S(c.C("report_done(wait_for_done())")).Only(c.ExportOnly)
	poll := waitPollCall()
	backoff := 50 * time.Microsecond
	lastCM := time.Now()
	var events []c.Stmt // --completion event: the event waits that ran
	for {
		if out, arrived, err := s.notifyArrived(wait, poll); arrived || err != nil {
			return prependC(out, events), err
		}
		if gone := s.peerGoneWhileWaiting(ctx, &lastCM); gone != nil {
			// The peer's SEND or doorbell WRITE lands before its DREQ, but
			// this side may have looked at the CQ just before it landed and
			// at the CM channel just after the DREQ (seen once under -race,
			// TestRoomServesEveryoneAtOnce): look once more before calling
			// the peer gone.
			if out, arrived, err := s.notifyArrived(wait, poll); arrived || err != nil {
				return out, err
			}
			return withC(Outcome{}, wait, poll.Returned("0, again and again")), gone
		}
		if s.cc != nil && s.cfg.Notify != NotifyDoorbell {
			// Sleep for the CQ's event in slices, between which the CM
			// channel is looked at; a slice that ends without an event
			// is not shown.
			slice, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			more, err := s.awaitEvent(slice)
			cancel()
			if err == nil {
				events = append(append(events, poll.Returned("0: empty, so wait for the event")), more...)
			} else if slice.Err() == nil || ctx.Err() != nil {
				return withC(Outcome{}, wait, poll.Returned("0, again and again")), fmt.Errorf("waiting for the client's notification: %w", err)
			}
			continue
		}
		select {
		case <-ctx.Done():
			return withC(Outcome{}, wait, poll.Returned("0, again and again; *doorbell stays 0")), fmt.Errorf("waiting for the client's notification: %w", ctx.Err())
		case <-time.After(backoff):
		}
		if backoff < 2*time.Millisecond {
			backoff *= 2
		}
	}
}

// notifyArrived looks once for the client's notification: a receive
// completion or the doorbell flag (arrived), or an error reading them.
func (s *Session) notifyArrived(wait, poll c.Stmt) (Outcome, bool, error) {
	wcs, err := s.cq.Poll(1)
	if err != nil {
		return withC(Outcome{}, wait, poll.Returned(errnoText(err))), false, err
	}
	if len(wcs) == 1 {
		out, err := s.finishNotify(wcs[0], poll)
		return withC(out, wait), true, err
	}
	db, err := s.mrDoor.Read(0, 8)
	if err != nil {
		return Outcome{}, false, err
	}
	if binary.BigEndian.Uint64(db) == DoorbellValue {
		out, err := s.finishDoorbell(poll.Returned("0"))
		return withC(out, wait), true, err
	}
	return Outcome{}, false, nil
}

// peerGoneWhileWaiting is why the peer can no longer notify: its
// DISCONNECTED, taken by an earlier wait (the no-recv lesson's late
// RECV) or found now on the CM channel (looked at every 100 ms).
func (s *Session) peerGoneWhileWaiting(ctx context.Context, lastCM *time.Time) error {
	if s.peerHungUp() {
		return peerLeftEarly(verbs.EventDisconnected, 0)
	}
	if time.Since(*lastCM) <= 100*time.Millisecond {
		return nil
	}
	*lastCM = time.Now()
	return s.checkPeerGone(ctx)
}

func (s *Session) finishNotify(wc verbs.WC, poll c.Stmt) (Outcome, error) {
	s.addCompletion(wc)
	s.tookSRQ(wc)
	out := withC(Outcome{}, poll.Returned(wcText(wc)))
	if wc.Status != verbs.WCSuccess {
		return out, &CompletionError{What: "the notification's RECV completion", WC: wc}
	}
	data, err := s.mrData.Read(0, s.dataLen())
	if err != nil {
		return out, err
	}
	res := &Result{Message: cString(data)}
	var late text.Text // the client's edits after connecting, if its SEND says any
	switch wc.Opcode {
	case verbs.WCRecv:
		b, err := s.readNotice(wc.WRID)
		if err != nil {
			return out, err
		}
		res.Via = NotifySend
		res.Notice = cString(b)
		late = s.peerLateEdits(b)
		s.got("SEND", res.Notice.String())
		out = withC(out, c.S(c.Call("printf", c.Str("%s\n"), c.C("recv_buf"))).Returned(fmt.Sprintf("%d, prints %s", len(res.Notice)+1, res.Notice)).Only(c.ScreenOnly))
	case verbs.WCRecvRDMAWithImm:
		res.Via = NotifyImm
		res.Notice = privdata.PeerBytes(fmt.Sprintf("imm_data=0x%x", wc.ImmData))
		out = withC(out, c.S(c.Call("printf", c.Str("%x\n"), c.Call("ntohl", c.C("wc.imm_data")))).Returned(fmt.Sprintf("%d, prints %x", len(fmt.Sprintf("%x", wc.ImmData))+1, wc.ImmData)).Only(c.ScreenOnly))
	default:
		return out, fmt.Errorf("unexpected completion opcode %s", wc.Opcode)
	}
	res.Summary = writeSummary(res)
	s.set(func() { s.result = res })
	out.Results = resultKVs(res, wc)
	out.Note = joinNotes(text.Text{EN: "The RECV completion is the notification; the data was already in the buffer before it.", ZH: "这个 RECV 完成就是通知；数据在它之前就已经在 buffer 里了。"}, late)
	return out, nil
}

// finishDoorbell: the flag is up; poll is the last, empty, look at the CQ.
func (s *Session) finishDoorbell(poll c.Stmt) (Outcome, error) {
	data, err := s.mrData.Read(0, s.dataLen())
	if err != nil {
		return Outcome{}, err
	}
	res := &Result{Via: NotifyDoorbell, Message: cString(data), Notice: privdata.PeerBytes(fmt.Sprintf("doorbell=%d", DoorbellValue))}
	res.Summary = writeSummary(res)
	s.set(func() { s.result = res })
	s.doorbellSeen()
	seen := c.S(c.C("if (" + doorbellUp().In(c.Actual) + ") __sync_synchronize()")).Noted(fmt.Sprintf("*doorbell is htobe64(%d): the flag is up", DoorbellValue)).Only(c.ScreenOnly)
	return withC(Outcome{
		Results: resultKVs(res, verbs.WC{}),
		Note: text.Text{EN: "No completion here: the server's CPU saw the flag change in memory.",
			ZH: "这里没有任何完成：是 server 的 CPU 看到了内存里的标志位变化。"}}, poll, seen), nil
}

func resultKVs(r *Result, wc verbs.WC) []KV {
	kv := []KV{result(resNotifiedBy, r.Via.String()), result(resNotice, r.Notice.String()), result(resBuffer, r.Message.String())}
	if wc.Opcode == verbs.WCRecvRDMAWithImm {
		kv = append(kv, result(resByteLen, fmt.Sprint(wc.ByteLen)))
	}
	return kv
}

// cString returns a copy of b up to its first NUL, as printf("%s") would
// print it; it came from the peer, so it is PeerBytes.
func cString(b []byte) privdata.PeerBytes {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return append(privdata.PeerBytes(nil), b...)
}
