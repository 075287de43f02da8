package steps

import (
	"fmt"
	"net/netip"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The wire lessons on a real NIC. rxe cannot lose the packets its QP
// sends (a drop on the sender's own host only makes it send again at
// once: verbs/rdmacore netfilter.go), so each side makes the losses of
// the packets that arrive at it: the lesson names the packets the peer
// loses (Lesson.wire for the other role), and this side's provider drops
// them on their way in (verbs.ArrivalDropper: an nftables rule), until
// teardown. The --wire flag names only this side's own packets, which
// only the simulated NIC can lose.

// dropArriving installs the peer's lesson losses on this host for qp,
// and notes what each side loses; without a provider that can, or for
// --wire, it fails the step with what to do.
func (s *Session) dropArriving(qp verbs.QP, out *Outcome) error {
	own, peer := s.wireFaults(), s.peerLessonFaults()
	if own.IsZero() && peer.IsZero() {
		return nil
	}
	if !s.cfg.Wire.IsZero() {
		return s.noRealDrop(s.cfg.Wire, nil)
	}
	if !peer.IsZero() {
		dropper, ok := s.cfg.Provider.(verbs.ArrivalDropper)
		if !ok {
			return s.noRealDrop(peer, nil)
		}
		remove, err := dropper.DropArriving(qp.Num(), s.peerIP(), peer)
		if err != nil {
			return s.noRealDrop(peer, err)
		}
		s.set(func() { s.wireRemove = remove })
		qpn := fmt.Sprintf("0x%x", qp.Num())
		addNote(out, text.Text{EN: "This host now drops the peer's packets to QP " + qpn + " as they arrive: " + peer.String() + " (numbered from 1 as the peer sends them, retransmissions included), with an nftables rule on netfilter's input hook (`nft list ruleset` shows it), removed at teardown.",
			ZH: "本机现在会在对端发往 QP " + qpn + " 的包到达时把它们丢掉：" + peer.String() + "（按对端发出的顺序从 1 编号，重传也算），用的是 netfilter input 钩子上的一条 nftables 规则（`nft list ruleset` 可以看到），拆除时删掉。"})
	}
	if !own.IsZero() {
		addNote(out, text.Text{EN: "This side's packets meet " + own.String() + ": the peer's host drops them as they arrive there.",
			ZH: "本端发出的包会遇到 " + own.String() + "：由对端主机在包到达时丢掉。"})
	}
	return nil
}

// peerLessonFaults is what the lesson loses of the peer's packets.
func (s *Session) peerLessonFaults() verbs.WireFaults {
	l := s.cfg.Lesson
	if l == nil || l.wire == nil {
		return verbs.WireFaults{}
	}
	cfg := s.cfg
	cfg.Role = Server
	if s.cfg.Role == Server {
		cfg.Role = Client
	}
	return l.wire(cfg)
}

// peerIP is the peer's address as the CM id knows it (invalid before).
func (s *Session) peerIP() netip.Addr {
	s.mu.Lock()
	id := s.id
	s.mu.Unlock()
	if id == nil {
		return netip.Addr{}
	}
	return id.PeerAddr().Addr()
}

// noRealDrop is the step's failure when this NIC cannot lose f.
func (s *Session) noRealDrop(f verbs.WireFaults, err error) error {
	return &Problem{Err: err,
		What: text.Text{EN: "this run loses packets on purpose (" + f.String() + "), and this NIC cannot",
			ZH: "这次运行要故意丢包（" + f.String() + "），而这块网卡做不到"},
		Fix: text.Text{EN: "run both sides with --backend sim, or, for a wire lesson on Soft-RoCE, run each side as root on its own host with nft installed (--wire itself is for the simulated NIC only)",
			ZH: "两端都加 --backend sim；要在 Soft-RoCE 上做线路课，请两端各在自己的主机上以 root 运行并装好 nft（--wire 本身只用于模拟网卡）"}}
}
