package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// iWARP (Soft-iWARP siw0, or an iWARP NIC): the same verbs over TCP.
// What the tours do differently there, measured on siw0 in the guest
// (verbs/rdmacore TestSiwDeviceAndRefusals, TestSiwReadSinkWithoutRemoteWrite):
// no UD QP (EOPNOTSUPP), no atomics and no immediate data (EINVAL at
// ibv_post_send), private data delivered exactly as sent, ibv_query_qp's
// qp_state always RESET (siw_query_qp never fills it), and a READ sink
// that needs REMOTE_WRITE on iWARP hardware (siw itself checks only
// LOCAL_WRITE). The device's transport type decides, never its name.

// onIWARP checks the device the CM id was just bound to: an error when
// this tour or notify mode cannot run on iWARP (before any PD, CQ or QP
// exists), else the note that says what iWARP changes (empty on IB/RoCE).
func (s *Session) onIWARP(dev verbs.Device) (text.Text, error) {
	if dev == nil || !dev.Info().IsIWARP() {
		return text.Text{}, nil
	}
	name := dev.Info().Name
	tour, _ := TourOf(s.cfg.Tour)
	if tour.noIWARP.EN != "" {
		return text.Text{}, problem(fmt.Errorf("%s is an iWARP device (IBV_TRANSPORT_IWARP)", name),
			text.Text{EN: fmt.Sprintf("--tour %s cannot run on %s, an iWARP device: %s", tour.Name, name, tour.noIWARP.EN),
				ZH: fmt.Sprintf("--tour %s 不能在 iWARP 设备 %s 上运行：%s", tour.Name, name, tour.noIWARP.ZH)},
			text.Text{EN: "run --tour write or --tour read on it, or this tour on a RoCE device (rxe) or --backend sim", ZH: "在它上面跑 --tour write 或 --tour read，或者在 RoCE 设备（rxe）或 --backend sim 上跑这个教程"})
	}
	if s.cfg.Track == TrackManual {
		return text.Text{}, problem(fmt.Errorf("%s is an iWARP device (IBV_TRANSPORT_IWARP)", name), manualOnIWARP(name),
			text.Text{EN: "run the tour without --track manual on it, or the manual track on a RoCE device (rxe) or --backend sim", ZH: "在它上面去掉 --track manual 跑教程，或者在 RoCE 设备（rxe）或 --backend sim 上跑手动路线"})
	}
	if tour.Notifies && s.cfg.Role == Client && s.cfg.Notify == NotifyImm {
		return text.Text{}, problem(fmt.Errorf("%s is an iWARP device (IBV_TRANSPORT_IWARP)", name),
			text.Text{EN: fmt.Sprintf("--notify imm cannot run on %s: iWARP has no immediate data, and the siw provider refuses IBV_WR_RDMA_WRITE_WITH_IMM with EINVAL at ibv_post_send", name),
				ZH: fmt.Sprintf("--notify imm 不能在 %s 上运行：iWARP 没有立即数，siw 的 provider 在 ibv_post_send 时以 EINVAL 拒绝 IBV_WR_RDMA_WRITE_WITH_IMM", name)},
			text.Text{EN: "use --notify send or --notify doorbell", ZH: "改用 --notify send 或 --notify doorbell"})
	}
	note := text.Text{EN: fmt.Sprintf("%s is iWARP, not RoCE: the connection is a real TCP connection to port %d, MPA frames carry the private data exactly as sent (no padding to 196 bytes), and RDMAP/DDP carry the WRITEs, READs and SENDs inside it; TCP, not the RC transport, retransmits. siw's ibv_query_qp never reports qp_state, so the QP state it shows reads RESET even when connected.", name, s.cmPort()),
		ZH: fmt.Sprintf("%s 是 iWARP，不是 RoCE：连接是一条真正的 TCP 连接，连到端口 %d；MPA 帧按原样携带 private data（不补齐到 196 字节），WRITE、READ、SEND 由 RDMAP/DDP 在这条连接里传送；重传由 TCP 负责，而不是 RC 传输层。siw 的 ibv_query_qp 从不填 qp_state，所以即使已连接，显示的 QP 状态也是 RESET。", name, s.cmPort())}
	return note, nil
}

// manualOnIWARP says why the manual track cannot run on an iWARP device.
// The track is IB CM's: the client's rdma_connect without a QP is
// answered by CONNECT_RESPONSE, then the program moves its QP to RTR and
// RTS and calls rdma_establish. On iWARP the kernel turns the MPA Reply
// straight into ESTABLISHED (cma.c cma_iw_handler,
// IW_CM_EVENT_CONNECT_REPLY), and the iWARP CM moves the QP to RTS
// itself, handing it the TCP socket: siw refuses RTS without one (siw_qp.c
// siw_qp_nextstate_from_idle, "no socket").
func manualOnIWARP(name string) text.Text {
	return text.Text{EN: fmt.Sprintf("--track manual cannot run on %s, an iWARP device: the track is the IB connection manager's (CONNECT_RESPONSE, then your own ibv_modify_qp to RTR and RTS, then rdma_establish), and on iWARP the connection manager moves the QP to RTS itself, on the TCP connection it made, and the client gets ESTABLISHED, never CONNECT_RESPONSE", name),
		ZH: fmt.Sprintf("--track manual 不能在 iWARP 设备 %s 上运行：手动路线是按 IB 连接管理器的做法走的（先收到 CONNECT_RESPONSE，再自己用 ibv_modify_qp 把 QP 改到 RTR 和 RTS，最后调用 rdma_establish）；而在 iWARP 上，连接管理器在它建立的 TCP 连接上自己把 QP 改到 RTS，client 收到的是 ESTABLISHED，永远不会收到 CONNECT_RESPONSE", name)}
}

// cmPort is the TCP port an iWARP connection uses: the server's own, or
// the one the client connects to.
func (s *Session) cmPort() uint16 {
	if s.cfg.Role == Server {
		return s.cfg.Bind.Port()
	}
	return s.cfg.Server.Port()
}

// iwarpReadSinkNote says why the read tour's client buffer gets
// REMOTE_WRITE on iWARP.
var iwarpReadSinkNote = text.Text{EN: "On iWARP the READ's sink gets IBV_ACCESS_REMOTE_WRITE too: the READ response is a tagged DDP message placed into the requester's buffer through the sink's STag (RFC 5040), so iWARP hardware checks remote write rights on it. siw itself checks only LOCAL_WRITE (measured), but a portable program does not rely on that.",
	ZH: "在 iWARP 上，READ 的接收 buffer 还要加上 IBV_ACCESS_REMOTE_WRITE：READ 响应是一条带标签的 DDP 消息，通过这块 buffer 的 STag 放进请求端的内存（RFC 5040），所以 iWARP 硬件要检查它的远程写权限。siw 本身只检查 LOCAL_WRITE（实测），但可移植的程序不依赖这一点。"}

// iwarpSinkAccess is what the client's data buffer adds on iWARP in a
// tour whose READ lands in it.
func (s *Session) iwarpSinkAccess(access verbs.Access) (verbs.Access, text.Text) {
	tour, _ := TourOf(s.cfg.Tour)
	if !tour.ReadSink || s.cfg.Role != Client || !s.iwarp {
		return access, text.Text{}
	}
	return access | verbs.AccessRemoteWrite, iwarpReadSinkNote
}

// wireLabel is what the timeline calls a CM message this side sent or
// got. On iWARP rdma_cm speaks no IB CM (iw_cm): the connection is a TCP
// connection whose first frames are MPA's start-up frames, which carry
// the private data (the request; the reply, with its Reject bit for a
// refusal), there is no RTU, and a disconnect is TCP's FIN. Measured
// across two siw guests: tcpdump held MPA Request, MPA Reply and a FIN
// exchange, no other CM message (scripts/qemu/siw-two-guests.sh,
// TestSiwTwoHostsWireRows). Nor does anything acknowledge a WRITE or a
// SEND: siw completes one once its last segment is handed to TCP
// (drivers/infiniband/sw/siw/siw_qp_tx.c siw_qp_sq_process calls
// siw_sqe_complete when siw_qp_sq_proc_tx is done), so the timeline's
// "ACK" from the peer would be a message no wire carries. ok is false for
// a message iWARP does not send.
func (s *Session) wireLabel(label string) (string, bool) {
	if !s.iwarp {
		return label, true
	}
	switch label {
	case "REQ":
		return "MPA Request", true
	case "REP":
		return "MPA Reply", true
	case "REJ":
		return "MPA Reply (Reject)", true
	case "RTU", "ACK":
		return "", false
	case "DREQ", "DREP":
		return "TCP FIN", true
	}
	return label, true
}

// establishedNote is what the server's ESTABLISHED says: the RTU's
// arrival, or on iWARP, which has none, what siw waits for instead.
func (s *Session) establishedNote() text.Text {
	if !s.iwarp {
		return text.Text{EN: "The client's RTU arrived: the connection is up.", ZH: "client 的 RTU 到了：连接建立。"}
	}
	return text.Text{EN: "The connection is up. iWARP has no RTU: siw reports ESTABLISHED once it has sent its MPA Reply (drivers/infiniband/sw/siw/siw_cm.c siw_accept); across two siw guests tcpdump shows nothing between the MPA Reply and the client's first RDMA Write.",
		ZH: "连接建立。iWARP 没有 RTU：siw 发出 MPA Reply 之后就报告 ESTABLISHED（drivers/infiniband/sw/siw/siw_cm.c siw_accept）；在两台 siw 虚拟机之间，tcpdump 在 MPA Reply 和 client 的第一个 RDMA Write 之间什么也没抓到。"}
}

// useDevice binds dev as this side's device (s.mu held).
func (s *Session) useDevice(dev verbs.Device) {
	s.dev, s.iwarp = dev, dev != nil && dev.Info().IsIWARP()
}
