package guide

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// WhatPeerMustDo says what the other side must do for w's wait to end,
// for the screen: "on the server: press Enter until step 13, Accept,
// handing out addr and rkey".
func WhatPeerMustDo(w steps.PeerWait) text.Text {
	return text.Text{
		EN: fmt.Sprintf("on the %s: press Enter until step %d, %s", w.Peer, w.Index+1, w.Step.Title.EN),
		ZH: fmt.Sprintf("在 %s 端：一直按回车，直到第 %d 步「%s」", w.Peer, w.Index+1, w.Step.Title.In(text.ZH)),
	}
}

// WhatPeerMustReach says it without the keypress, for runs where the peer
// may run by itself (--auto): "the server's step 13, Accept, handing out
// addr and rkey".
func WhatPeerMustReach(w steps.PeerWait) text.Text {
	return text.Text{
		EN: fmt.Sprintf("the %s's step %d, %s", w.Peer, w.Index+1, w.Step.Title.EN),
		ZH: fmt.Sprintf("%s 端的第 %d 步「%s」", w.Peer, w.Index+1, w.Step.Title.In(text.ZH)),
	}
}

// WaitNote says, in one short line, why a key pressed during a wait does
// nothing: what ends the wait (the peer w names, when the wait is on it).
func WaitNote(w steps.PeerWait, onPeer bool) text.Text {
	if !onPeer {
		return text.Text{EN: "still waiting for the network: Enter does nothing until this step ends; q quits",
			ZH: "仍在等待网络：这一步结束之前按回车不起作用；q 退出"}
	}
	return text.Text{EN: fmt.Sprintf("still waiting for the %s (step %d there): Enter does nothing until then; q quits", w.Peer, w.Index+1),
		ZH: fmt.Sprintf("仍在等待 %s（它的第 %d 步）：在那之前按回车不起作用；q 退出", w.Peer, w.Index+1)}
}

// PeerCommand says how to start the peer w waits for while it has not
// shown up ("" when it has, or when this side cannot tell): "not
// started yet? There, run: rdmatour client 192.0.2.10 --port 7471
// --backend sim".
func PeerCommand(w steps.PeerWait) text.Text {
	if w.Command.EN == "" {
		return text.Text{}
	}
	return text.Text{EN: fmt.Sprintf("not started yet? On the %s's terminal or host, run: %s", w.Peer, w.Command.EN),
		ZH: fmt.Sprintf("还没启动？在 %s 的终端或主机上运行：%s", w.Peer, w.Command.In(text.ZH))}
}
