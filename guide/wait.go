package guide

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
)

// WaitNote says, in one short line, why a key pressed during a wait does
// nothing: what ends the wait (the peer w names, when the wait is on it).
func WaitNote(w steps.PeerWait, onPeer bool) steps.Text {
	if !onPeer {
		return tr("still waiting for the network: Enter does nothing until this step ends; q quits",
			"仍在等待网络：这一步结束之前按回车不起作用；q 退出")
	}
	return tr(fmt.Sprintf("still waiting for the %s (step %d there): Enter does nothing until then; q quits", w.Peer, w.Index+1),
		fmt.Sprintf("仍在等待 %s（它的第 %d 步）：在那之前按回车不起作用；q 退出", w.Peer, w.Index+1))
}
