package steps

import (
	"context"
	"encoding/binary"
	"fmt"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The atomic tour (--tour atomic): the server's buffer starts with an
// 8-byte counter in an MR with IBV_ACCESS_REMOTE_ATOMIC; the client adds
// to it with FETCH_AND_ADD, then replaces it with CMP_AND_SWP, and sees
// the value each found there. Both sides first ask their device whether
// it does atomics at all (atomic_cap).

// The atomic tour's numbers.
const (
	CounterStart = 40   // the server's counter before the client's atomics
	AtomicAdd    = 2    // what FETCH_AND_ADD adds
	AtomicSwap   = 1000 // what CMP_AND_SWP stores when the compare holds
	WRIDFetchAdd = 500
	WRIDCmpSwap  = 501
)

// atomicTour is the atomic tour's table: the RC skeleton with an
// atomic_cap check, the server's counter, and FETCH_AND_ADD then
// CMP_AND_SWP where the write tour writes and notifies.
func atomicTour() rcTour {
	return rcTour{kind: TourAtomic, clientHangsUpAfter: IDGetEstablished,
		afterPD: func(role Role) []Step {
			return []Step{{ID: IDQueryDevice, Side: role, Section: SectionDevice,
				Title: text.Text{EN: "Ask the device whether it does atomics", ZH: "询问设备是否支持原子操作"},
				Call:  "ibv_query_device(id->verbs, &dev_attr);", run: stepQueryDevice}}
		},
		afterData: func(role Role) []Step {
			if role != Server {
				return nil
			}
			return []Step{{ID: IDPutCounter, Side: Server, Section: SectionMRs, roomShared: true,
				Title: text.Text{EN: "Put the 8-byte counter at the start of the buffer", ZH: "把 8 字节计数器放在 buffer 开头"},
				Call:  fmt.Sprintf("memcpy(buf, &(uint64_t){%d}, 8);", CounterStart), run: stepPutCounter}}
		},
		data: atomicSteps}
}

// atomicSteps are role's data steps: the server waits for the hang-up,
// the client posts and polls the two atomics.
func atomicSteps(role Role) []Step {
	if role == Server {
		return []Step{{ID: IDWaitAtomics, Side: Server, Section: SectionData, Waits: true, Milestones: MilestoneLanded, After: []StepID{IDDisconnect},
			Title: text.Text{EN: "Wait while the client's atomics run, then read the counter", ZH: "等 client 的原子操作做完，再读计数器"},
			Call:  waitEventGeneric(verbs.EventDisconnected), run: stepWaitAtomics}}
	}
	return []Step{
		{ID: IDPostFetchAdd, Side: Client, Section: SectionData, After: []StepID{IDGetEstablished},
			Title: text.Text{EN: "FETCH_AND_ADD on the server's counter", ZH: "对 server 的计数器做 FETCH_AND_ADD"},
			Call:  postSendGeneric(verbs.WRAtomicFetchAndAdd, "buf", ""), run: stepPostFetchAdd},
		{ID: IDPollFetchAdd, Side: Client, Section: SectionCQ, Waits: true,
			Title: text.Text{EN: "Poll it: the counter's old value", ZH: "轮询完成：计数器原来的值"},
			Call:  "ibv_poll_cq(cq, 1, &wc);", run: stepPollFetchAdd},
		{ID: IDPostCmpSwap, Side: Client, Section: SectionData,
			Title: text.Text{EN: "CMP_AND_SWP: replace the counter if it still holds what we expect", ZH: "CMP_AND_SWP：计数器还是预期的值就替换它"},
			Call:  postSendGeneric(verbs.WRAtomicCmpAndSwp, "buf", ""), run: stepPostCmpSwap},
		{ID: IDPollCmpSwap, Side: Client, Section: SectionCQ, Waits: true,
			Title: text.Text{EN: "Poll it: did the swap happen?", ZH: "轮询完成：替换成功了吗？"},
			Call:  "ibv_poll_cq(cq, 1, &wc);", run: stepPollCmpSwap},
	}
}

// stepQueryDevice reads atomic_cap and the READ/atomic limits; a device
// with IBV_ATOMIC_NONE cannot run this tour, and the step says so.
func stepQueryDevice(_ context.Context, s *Session) (Outcome, error) {
	info := s.dev.Info()
	call := c.Must("ibv_query_device", c.Call("ibv_query_device", c.C("id->verbs"), c.C("&dev_attr"))).
		Returned(fmt.Sprintf("0: { .atomic_cap = %s, .max_qp_rd_atom = %d, .max_qp_init_rd_atom = %d }", info.AtomicCap, info.MaxQPRdAtom, info.MaxQPInitRdAtom))
	check := c.S(c.C(`if (dev_attr.atomic_cap == IBV_ATOMIC_NONE) die("this device does no atomics (IBV_ATOMIC_NONE)")`)).Only(c.ExportOnly)
	out := withC(Outcome{Results: []KV{result(resDevice, info.Name), result(resAtomicCap, info.AtomicCap.String()),
		result(resMaxQpRdAtom, fmt.Sprint(info.MaxQPRdAtom)), result(resMaxQpInitRdAtom, fmt.Sprint(info.MaxQPInitRdAtom))}}, call, check)
	if info.AtomicCap == verbs.AtomicNone {
		return out, problem(fmt.Errorf("%s: atomic_cap is IBV_ATOMIC_NONE", info.Name),
			text.Text{EN: "this device does no atomic operations, so the atomic tour cannot run on it", ZH: "这块设备不支持原子操作，原子操作教程无法在上面运行"},
			text.Text{EN: "run --tour write or --tour read here, or use a device whose atomic_cap is IBV_ATOMIC_HCA or IBV_ATOMIC_GLOB", ZH: "这里请改用 --tour write 或 --tour read，或者换一块 atomic_cap 为 IBV_ATOMIC_HCA / IBV_ATOMIC_GLOB 的设备"})
	}
	out.Note = text.Text{EN: "atomic_cap says whether this device does atomics and atomic against whom: IBV_ATOMIC_HCA means among this device's QPs only (the CPU may interleave), IBV_ATOMIC_GLOB also against the CPU and other devices. max_qp_rd_atom and max_qp_init_rd_atom cap responder_resources and initiator_depth: READs and atomics share them.",
		ZH: "atomic_cap 说明这块设备是否支持原子操作、对谁而言是原子的：IBV_ATOMIC_HCA 只在本设备的 QP 之间保证原子（CPU 可能插进来），IBV_ATOMIC_GLOB 对 CPU 和其他设备也保证。max_qp_rd_atom 和 max_qp_init_rd_atom 是 responder_resources 和 initiator_depth 的上限：READ 和原子操作共用它们。"}
	return out, nil
}

func stepPutCounter(_ context.Context, s *Session) (Outcome, error) {
	fill := c.S(c.Call("memcpy", c.C("buf"), c.C(fmt.Sprintf("&(uint64_t){%d}", CounterStart)), c.C("8")))
	if err := s.mrData.Write(0, binary.LittleEndian.AppendUint64(nil, CounterStart)); err != nil {
		return withC(Outcome{}, fill), err
	}
	return withC(Outcome{Results: []KV{result(resCounter, fmt.Sprint(CounterStart)), result(resAt, fmt.Sprintf("0x%x", s.mrData.Addr())),
		KV{Name: res8ByteAligned, Value: yesNo(s.mrData.Addr()%8 == 0)},
		result(resAccess, s.mrData.Access().String())},
		Note: text.Text{EN: "An atomic works on 8 bytes at an 8-byte aligned address, in this host's byte order (no htobe64 here: the NIC operates on the value as the CPU stores it). The MR needs IBV_ACCESS_REMOTE_ATOMIC.",
			ZH: "原子操作作用在 8 字节对齐地址上的 8 个字节，按本机字节序（这里不用 htobe64：网卡按 CPU 存放的样子操作这个值）。MR 需要 IBV_ACCESS_REMOTE_ATOMIC。"}}, fill.Returned("buf")), nil
}

// postAtomic posts one atomic on the server's counter, the old value
// coming back into the first 8 bytes of the client's buffer.
func (s *Session) postAtomic(op verbs.WROpcode, wrID, compareAdd, swap uint64, compareAddC, swapC c.Expr) (Outcome, error) {
	info, t := s.remoteBuffer()
	t.CompareAddC, t.SwapC = compareAddC, swapC
	wr := verbs.SendWR{WRID: wrID, Opcode: op, Flags: verbs.SendSignaled, SGList: []verbs.SGE{{Addr: s.mrData.Addr(), Length: 8, LKey: s.mrData.LKey()}},
		RemoteAddr: info.Addr, RKey: info.RKey, CompareAdd: compareAdd, Swap: swap}
	if op == verbs.WRAtomicFetchAndAdd {
		t = s.atomicTarget(t)
	}
	wr.RemoteAddr = t.Addr
	call := postSendCall(wr, "buf", c.Dec(8, "sizeof(uint64_t)"), t, "ibv_post_send "+op.String())
	if t.Why != "" {
		call = call.Noted(t.Why)
	}
	if err := s.qp.PostSend(wr); err != nil {
		return withC(Outcome{Results: []KV{result(resTarget, fmt.Sprintf("0x%x = remote_addr + %d", t.Addr, t.Addr-info.Addr)), {Name: res8ByteAligned, Value: yesNo(t.Addr%8 == 0)}},
			Note: text.Text{EN: "The error is ibv_post_send's return value: Soft-RoCE's provider checks the alignment before anything is queued, so nothing goes on the wire and the QP stays in RTS.",
				ZH: "错误是 ibv_post_send 的返回值：Soft-RoCE 的 provider 在入队之前就检查对齐，所以什么都不会上线，QP 仍然是 RTS。"}}, postFailed(call, err)), err
	}
	s.sentText(opcodeLabel(op), text.Text{EN: fmt.Sprintf("8 B at 0x%x", t.Addr), ZH: fmt.Sprintf("0x%x 处的 8 字节", t.Addr)})
	return withC(Outcome{Results: []KV{result(resTarget, fmt.Sprintf("0x%x rkey 0x%x", info.Addr, info.RKey)), result(resCompareAdd, fmt.Sprint(compareAdd)), result(resSwap, fmt.Sprint(swap))}}, call.Returned("0")), nil
}

func opcodeLabel(op verbs.WROpcode) string {
	if op == verbs.WRAtomicCmpAndSwp {
		return "COMPARE_SWAP"
	}
	return "FETCH_ADD"
}

func stepPostFetchAdd(_ context.Context, s *Session) (Outcome, error) {
	out, err := s.postAtomic(verbs.WRAtomicFetchAndAdd, WRIDFetchAdd, AtomicAdd, 0, c.Dec(AtomicAdd, ""), c.Dec(0, ""))
	out.Note = text.Text{EN: "One FETCH_ADD packet carries the address, rkey and the value to add (AtomicETH); the server's NIC adds it in one indivisible step and answers with ATOMIC_ACKNOWLEDGE carrying the value it found.",
		ZH: "一个 FETCH_ADD 包里带着地址、rkey 和要加的值（AtomicETH）；server 的网卡一步不可分割地加上去，然后用 ATOMIC_ACKNOWLEDGE 把它看到的原值带回来。"}
	return out, err
}

// pollAtomic polls the atomic's completion and reads the old value.
func (s *Session) pollAtomic(ctx context.Context, what string, op verbs.WCOpcode, oldVar string) (Outcome, uint64, error) {
	out, err := s.pollStep(ctx, what, op)
	if err != nil {
		return out, 0, err
	}
	b, err := s.mrData.Read(0, 8)
	if err != nil {
		s.got("ATOMIC_ACKNOWLEDGE", "")
		return out, 0, err
	}
	old := binary.LittleEndian.Uint64(b)
	s.gotText("ATOMIC_ACKNOWLEDGE", text.Text{EN: fmt.Sprintf("old value %d, back into buf", old), ZH: fmt.Sprintf("带回原值 %d，写进 buf", old)})
	out = withC(out, c.S(c.Call("memcpy", c.C("&"+oldVar), c.C("buf"), c.C("8"))).Returned(fmt.Sprintf("%s = %d", oldVar, old)),
		c.S(c.C(fmt.Sprintf(`printf("[client] old value %%" PRIu64 "\n", %s)`, oldVar))).Only(c.ExportOnly))
	out.Results = append(out.Results, result(resOldValue, fmt.Sprint(old)))
	return out, old, nil
}

func stepPollFetchAdd(ctx context.Context, s *Session) (Outcome, error) {
	out, old, err := s.pollAtomic(ctx, "FETCH_AND_ADD completion", verbs.WCFetchAdd, "old")
	if err != nil {
		return out, err
	}
	s.set(func() { s.atomicOld, s.fetchAdded = old, true })
	out.Results = append(out.Results, KV{Name: resCounterAfterOurAdd, Value: text.Text{EN: fmt.Sprintf("%d (old + %d)", old+AtomicAdd, AtomicAdd), ZH: fmt.Sprintf("%d（原值 + %d）", old+AtomicAdd, AtomicAdd)}})
	out.Note = text.Text{EN: "The completion carries the counter's value from before the add, written into our buffer in this host's byte order. Had another client added at the same moment, each would see a different old value: nothing is lost.",
		ZH: "完成带回的是加之前的计数器值，按本机字节序写进我们的 buffer。如果另一个 client 同时也在加，两边看到的原值各不相同：一次加法都不会丢。"}
	if old != CounterStart {
		out.Note = joinNotes(out.Note, othersAddedNote(old))
	}
	return out, nil
}

// othersAddedNote explains an old value that is not the server's start:
// someone else (in a workshop room, the other attendees) changed the
// counter first.
func othersAddedNote(old uint64) text.Text {
	return text.Text{EN: fmt.Sprintf("The counter was %d, not the %d the server started it at: someone else changed it before this add. In a workshop room every attendee's atomics hit the same counter, so this old value is yours alone, and the counter may move again before your next step.", old, CounterStart),
		ZH: fmt.Sprintf("计数器是 %d，而不是 server 设的初值 %d：在这次加之前已经有人改过它。在 workshop 教室里所有学员的原子操作都打在同一个计数器上，所以这个原值只属于你这一次，而且在你下一步之前计数器还可能再变。", old, CounterStart)}
}

func stepPostCmpSwap(_ context.Context, s *Session) (Outcome, error) {
	s.mu.Lock()
	expect := s.atomicOld + AtomicAdd
	s.mu.Unlock()
	out, err := s.postAtomic(verbs.WRAtomicCmpAndSwp, WRIDCmpSwap, expect, AtomicSwap,
		c.Value(fmt.Sprint(expect), fmt.Sprintf("old + %d", AtomicAdd)), c.Dec(AtomicSwap, ""))
	out.Note = text.Text{EN: "COMPARE_SWAP stores swap only if the counter still equals compare_add (what we believe it is after our add); either way the old value comes back.",
		ZH: "COMPARE_SWAP 只有在计数器仍等于 compare_add（我们认为加完之后的值）时才写入 swap；无论成败，原值都会带回来。"}
	return out, err
}

func stepPollCmpSwap(ctx context.Context, s *Session) (Outcome, error) {
	out, old, err := s.pollAtomic(ctx, "CMP_AND_SWP completion", verbs.WCCompSwap, "old2")
	if err != nil {
		return out, err
	}
	s.mu.Lock()
	fetchOld, added := s.atomicOld, s.fetchAdded
	s.mu.Unlock()
	expect := fetchOld + AtomicAdd
	swapped := old == expect
	counterNow := uint64(AtomicSwap)
	if !swapped {
		counterNow = old
	}
	summary := atomicsSummary(fetchOld, old, added, swapped)
	s.set(func() {
		s.result = &Result{Tour: TourAtomic, Message: privdata.PeerBytes(fmt.Sprintf("fetch_add old=%d, cmp_swap old=%d", s.atomicOld, old)), Summary: summary}
	})
	out.Results = append(out.Results, KV{Name: resCompareHeld, Value: yesNo(swapped)}, result(resCounterNow, fmt.Sprint(counterNow)))
	out.Note = text.Text{EN: "If the old value equals compare_add the swap happened; otherwise the counter changed in between and nothing was stored. This is how a lock or a version check is built with one-sided operations.",
		ZH: "原值等于 compare_add 说明替换成功；否则计数器在中间被改过，什么都没有写入。用单边操作做锁或者版本校验就是这个道理。"}
	switch {
	case !swapped && !added:
		out.Note = joinNotes(out.Note, notAddedNote(expect, old))
	case !swapped:
		out.Note = joinNotes(out.Note, text.Text{EN: fmt.Sprintf("Here it did not hold: between your FETCH_AND_ADD and this CMP_AND_SWP the counter went from %d to %d. Nobody on this side touched it, so another client did (in a workshop room, another attendee's add or swap). That is not an error: the completion is IBV_WC_SUCCESS and the old value tells you what happened.", expect, old),
			ZH: fmt.Sprintf("这次不成立：在你的 FETCH_AND_ADD 和这次 CMP_AND_SWP 之间，计数器从 %d 变成了 %d。本端没人碰过它，所以是别的 client 改的（在 workshop 教室里，就是别的学员的加法或替换）。这不是错误：完成状态是 IBV_WC_SUCCESS，原值告诉你发生了什么。", expect, old)})
	}
	return out, nil
}

// atomicsSummary is the client's result sentence: what each atomic found
// and what the counter holds now.
func atomicsSummary(fetchOld, old uint64, added, swapped bool) text.Text {
	now := text.Text{EN: fmt.Sprintf("%d (swapped)", AtomicSwap), ZH: fmt.Sprintf("%d（已替换）", AtomicSwap)}
	if !swapped {
		now = text.Text{EN: fmt.Sprintf("%d (unchanged: someone else changed it first)", old), ZH: fmt.Sprintf("%d（未变：有别人先改了它）", old)}
	}
	if !added {
		if !swapped {
			now = text.Text{EN: fmt.Sprintf("%d (unchanged)", old), ZH: fmt.Sprintf("%d（未变）", old)}
		}
		return text.Text{EN: fmt.Sprintf("FETCH_AND_ADD did not run and CMP_AND_SWP found %d: the counter is now %s.", old, now.EN),
			ZH: fmt.Sprintf("FETCH_AND_ADD 没有执行，CMP_AND_SWP 看到的是 %d：计数器现在是 %s。", old, now.ZH)}
	}
	return text.Text{EN: fmt.Sprintf("FETCH_AND_ADD found %d and CMP_AND_SWP found %d: the counter is now %s.", fetchOld, old, now.EN),
		ZH: fmt.Sprintf("FETCH_AND_ADD 看到的是 %d，CMP_AND_SWP 看到的是 %d：计数器现在是 %s。", fetchOld, old, now.ZH)}
}

// notAddedNote explains a compare that failed because this side's
// FETCH_AND_ADD never ran (its post failed): old was never filled in, so
// compare_add was a guess, not a sign of another client.
func notAddedNote(expect, old uint64) text.Text {
	return text.Text{EN: fmt.Sprintf("Here it did not hold because your FETCH_AND_ADD never ran: its post failed, so old was never filled in and compare_add = old + %d = %d was a guess. The counter was %d.", AtomicAdd, expect, old),
		ZH: fmt.Sprintf("这次不成立，是因为你的 FETCH_AND_ADD 根本没有执行：它的 post 失败了，old 从没被填过，compare_add = old + %d = %d 只是猜的。计数器是 %d。", AtomicAdd, expect, old)}
}

// stepWaitAtomics: atomics, like READs, leave the responder no
// completion; the server waits for the client to hang up, then reads its
// counter.
func stepWaitAtomics(ctx context.Context, s *Session) (Outcome, error) {
	out, err := stepWaitDisconnected(ctx, s)
	if err != nil {
		return out, err
	}
	b, err := s.counterMR().Read(0, 8)
	if err != nil {
		return out, err
	}
	v := binary.LittleEndian.Uint64(b)
	ops, seen := s.answeredOps()
	summary := atomicSummary(ops, seen, s.sharedCounter != nil, v)
	if done, known := atomicsDone(ops, seen, s.sharedCounter != nil, v); known && done < atomicsPlanned && s.followsPlan() {
		out.Results = []KV{result(resEvent, verbs.EventDisconnected.String()), result(resCounter, fmt.Sprint(v)), result(resAtomicsAnswered, fmt.Sprint(done))}
		out.Note = summary
		return out, peerSkipped(done, atomicsPlanned, text.Text{EN: "atomics", ZH: "原子操作"})
	}
	s.set(func() {
		s.result = &Result{Tour: TourAtomic, Message: privdata.PeerBytes(fmt.Sprintf("counter=%d", v)), Summary: summary}
	})
	out = withC(out, c.S(c.C(`printf("[server] counter: %" PRIu64 "\n", *(uint64_t *)(void *)buf)`)).Returned(fmt.Sprintf("prints %d", v)))
	out.Results = []KV{result(resEvent, verbs.EventDisconnected.String()), result(resCounter, fmt.Sprint(v)), result(resStartedAt, fmt.Sprint(CounterStart))}
	out.Note = joinNotes(summary, text.Text{EN: "Only now does the server's CPU read the counter.", ZH: "server 的 CPU 到现在才去读计数器。"})
	return out, nil
}

func atomicTourDef() TourDef {
	return TourDef{Kind: TourAtomic, Name: "atomic", DataAccess: verbs.AccessLocalWrite | verbs.AccessRemoteAtomic,
		NeedsAtomics: true, SharedCounter: true,
		// siw: atomic_cap IBV_ATOMIC_NONE, atomics EINVAL at post (TestSiwDeviceAndRefusals).
		noIWARP: text.Text{EN: "iWARP has no atomics here: siw reports atomic_cap IBV_ATOMIC_NONE and its provider refuses IBV_WR_ATOMIC_FETCH_AND_ADD and IBV_WR_ATOMIC_CMP_AND_SWP with EINVAL (RFC 7306 adds atomics to iWARP; siw does not implement it)",
			ZH: "这里的 iWARP 没有原子操作：siw 报告 atomic_cap 为 IBV_ATOMIC_NONE，它的 provider 以 EINVAL 拒绝 IBV_WR_ATOMIC_FETCH_AND_ADD 和 IBV_WR_ATOMIC_CMP_AND_SWP（RFC 7306 给 iWARP 加了原子操作，siw 没有实现）"},
		build: func(role Role, _ Notify, _ Track) []Step { return atomicTour().steps(role, cmTrack()) }, tools: atomicTools}
}

// atomicTools: perftest's atomic bandwidth, one command per atomic the
// tour posts (an atomic is 8 bytes: ib_atomic_bw takes no -s).
func atomicTools(a ToolArgs) []ToolCommand {
	return []ToolCommand{
		perftest("ib_atomic_bw", a, text.Text{EN: "fetch-and-add rate over an rdma_cm connection", ZH: "基于 rdma_cm 连接的 fetch-and-add 速率"}, "-A", "FETCH_AND_ADD"),
		perftest("ib_atomic_bw", a, text.Text{EN: "compare-and-swap rate", ZH: "compare-and-swap 速率"}, "-A", "CMP_AND_SWAP"),
	}
}
