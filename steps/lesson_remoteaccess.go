package steps

import (
	"fmt"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The remote-access family: four ways to make the server's responder
// refuse the client's RDMA WRITE with a remote access error. They share
// one tour edit and one question shape; each has its own mistake, made
// inside a step through the Mistake hook (mistake.go), and its own setup
// sentence for the question.

func lessonBadRKey() Lesson {
	setup := text.Text{EN: "The client puts its own lkey where the server's rkey belongs.", ZH: "client 把自己的 lkey 填在了 server 的 rkey 该在的位置。"}
	return Lesson{Name: "bad-rkey", Notify: NotifySend, by: Client,
		Title:   text.Text{EN: "WRITE with the wrong rkey", ZH: "用错 rkey 做 WRITE"},
		Summary: text.Text{EN: "the client puts its own lkey in wr.rdma.rkey: remote access error, then Work Request Flushed Error", ZH: "client 把自己的 lkey 填进 wr.rdma.rkey：remote access error，随后 Work Request Flushed Error"},
		edit:    editRemoteAccessError, preset: []string{"client:post-write.rkey=lkey"}, predict: predictRemoteAccess(setup, setup)}
}

func lessonOutOfBounds() Lesson {
	setup := text.Text{EN: "The client WRITEs its message starting 8 bytes before the end of the server's MR.", ZH: "client 从 server 的 MR 末尾前 8 字节处开始 WRITE 它的消息。"}
	return Lesson{Name: "out-of-bounds", Notify: NotifySend, by: Client,
		Title:   text.Text{EN: "WRITE past the end of the MR", ZH: "WRITE 越过 MR 末尾"},
		Summary: text.Text{EN: "the client writes at addr+size-8: remote access error, nothing lands", ZH: "client 从 addr+size-8 开始写：remote access error，一个字节也不会落地"},
		edit:    editRemoteAccessError, client: mistakeOutOfBounds, predict: predictRemoteAccess(setup, setup)}
}

func lessonNoRemoteWrite() Lesson {
	setup := text.Text{EN: "The server registered its buffer with IBV_ACCESS_LOCAL_WRITE only.", ZH: "server 注册 buffer 时只给了 IBV_ACCESS_LOCAL_WRITE。"}
	return Lesson{Name: "no-remote-write", Notify: NotifySend, by: Server,
		Title:   text.Text{EN: "MR without REMOTE_WRITE", ZH: "MR 没有 REMOTE_WRITE 权限"},
		Summary: text.Text{EN: "the server registers its buffer with LOCAL_WRITE only: remote access error", ZH: "server 注册 buffer 时只给了 LOCAL_WRITE：remote access error"},
		edit:    withDataAccess(verbs.AccessLocalWrite, editRemoteAccessError), preset: []string{"server:reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE"},
		predict: predictRemoteAccess(setup, setup)}
}

func lessonHtonlAddress() Lesson {
	return Lesson{Name: "htonl-address", Notify: NotifySend, by: Server,
		Title:   text.Text{EN: "64-bit address through htonl", ZH: "64 位地址被 htonl 截断"},
		Summary: text.Text{EN: "the server sends htonl((uintptr_t)buf): the address loses its top 32 bits, remote access error", ZH: "server 发送 htonl((uintptr_t)buf)：地址丢了高 32 位，remote access error"},
		edit:    editRemoteAccessError, server: mistakeHtonlAddress,
		predict: predictRemoteAccess(
			text.Text{EN: "The server sends its buffer address as htonl((uintptr_t)buf).", ZH: "server 以 htonl((uintptr_t)buf) 的形式发送 buffer 地址。"},
			text.Text{EN: "The server sent its buffer address as htonl((uintptr_t)buf).", ZH: "server 以 htonl((uintptr_t)buf) 的形式发来了 buffer 地址。"})}
}

// editRemoteAccessError: the tour learns which errors to expect; the
// mistake itself is made by the step functions.
func editRemoteAccessError(cfg Config, t *tourEdit) {
	if cfg.Role == Server {
		t.edit(IDWaitNotify, func(st *Step) {
			st.Expect = expectPeerFailure()
			st.After = []StepID{IDDisconnect}
		})
		return
	}
	t.edit(IDPollWrite, func(st *Step) { st.Expect = expectStatus(verbs.WCRemAccessErr) })
	t.edit(IDPollNotify, func(st *Step) { st.Expect = expectStatus(verbs.WCWRFlushErr) })
	t.edit(IDDisconnect, func(st *Step) { st.After = nil })
}

// predictRemoteAccess asks each side how its step ends, after saying
// what is wrong as that side would put it.
func predictRemoteAccess(serverSetup, clientSetup text.Text) func(Config) *Prediction {
	return func(cfg Config) *Prediction {
		if cfg.Role == Server {
			return &Prediction{At: IDWaitNotify, Choices: serverWaitChoices(),
				Question: text.Text{EN: serverSetup.EN + " The client then RDMA-WRITEs and SENDs its notification. How does the server's wait for the notification end?",
					ZH: serverSetup.ZH + "client 随后 RDMA WRITE，再 SEND 通知。server 等待通知的这一步会怎样结束？"}}
		}
		return &Prediction{At: IDPollWrite,
			Question: text.Text{EN: clientSetup.EN + " How does the RDMA WRITE complete?", ZH: clientSetup.ZH + "这个 RDMA WRITE 的完成状态是什么？"},
			Choices:  []Choice{statusChoice(verbs.WCSuccess), statusChoice(verbs.WCRemAccessErr), statusChoice(verbs.WCLocProtErr), statusChoice(verbs.WCRemInvReqErr)}}
	}
}

// The mistakes no edit can say, made inside the steps through the
// Mistake hook (bad-rkey and no-remote-write are presets of edits).
var (
	// htonl keeps the low 32 bits of the address; stored in a
	// little-endian u64 they read back, through be64toh, as those bits
	// shifted up by 32.
	mistakeHtonlAddress = Mistake{Advertise: func(t Target) Target {
		t.AddrC = c.Call("htonl", c.Hex(uint64(uint32(t.Addr)), "(uintptr_t)buf"))
		t.Addr = uint64(uint32(t.Addr)) << 32
		t.Why = "the lesson's mistake: htonl on a 64-bit address"
		return t
	}}

	// out-of-bounds starts 8 bytes before the end; a message of 8 bytes
	// or less (with its NUL) would still fit there, so it starts closer,
	// always leaving at least one byte past the end.
	mistakeOutOfBounds = Mistake{Write: func(t Target, size uint32, _ verbs.MR, n int) Target {
		back := min(8, max(n-1, 0))
		t.Why = fmt.Sprintf("the lesson's mistake: remote_addr = addr + size - %d, then %d bytes", back, n)
		t.Addr += uint64(size) - uint64(back)
		t.AddrC = c.Hex(t.Addr, fmt.Sprintf("remote_addr + size - %d", back))
		return t
	}}
)
