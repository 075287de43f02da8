package explain

import "github.com/rdmatour/rdmatour/text"

// cmEvents are the rdma_cm events (enum rdma_cm_event_type, in
// rdma_get_cm_event(3)); verbs.CMEventType names them.
var cmEvents = []entry{
	{0, text.Text{EN: "address resolution (rdma_resolve_addr) finished", ZH: "地址解析（rdma_resolve_addr）完成"}, nil},
	{1, text.Text{EN: "address resolution (rdma_resolve_addr) failed", ZH: "地址解析（rdma_resolve_addr）失败"}, []Cause{
		cause("no RDMA device serves a route to that address, or ARP got no answer (event->status says which errno)", "没有 RDMA 设备能到达那个地址，或 ARP 没有回应（event->status 给出 errno）"),
	}},
	{2, text.Text{EN: "route resolution (rdma_resolve_route) finished", ZH: "路由解析（rdma_resolve_route）完成"}, nil},
	{3, text.Text{EN: "route resolution (rdma_resolve_route) failed", ZH: "路由解析（rdma_resolve_route）失败"}, nil},
	{4, text.Text{EN: "a client's connection request reached this listener", ZH: "client 的连接请求到达了这个监听者"}, nil},
	{5, text.Text{EN: "the server answered a connection whose QP the program manages itself", ZH: "server 回答了一个由程序自己管理 QP 的连接"}, nil},
	{6, text.Text{EN: "an error while establishing the connection, on either side", ZH: "建立连接时出错，两端都可能收到"}, []Cause{
		cause("the QP could not be moved to RTR or RTS with the peer's parameters", "无法用对端的参数把 QP 改到 RTR 或 RTS"),
	}},
	{7, text.Text{EN: "the server did not answer the connection request", ZH: "server 没有回答连接请求"}, []Cause{
		cause("wrong host, a firewall dropping UDP 4791 (RoCEv2), or no RDMA on the server; after all the CM's repeats, status -110 (-ETIMEDOUT)", "主机不对、防火墙丢弃 UDP 4791（RoCEv2），或 server 上没有 RDMA；CM 重发完以后，status 为 -110（-ETIMEDOUT）"),
	}},
	{8, text.Text{EN: "the peer refused the connection; event->status is the REJ's reason", ZH: "对端拒绝了连接；event->status 是 REJ 里的原因"}, []Cause{
		cause("status 8: nothing listens on that port", "status 8：那个端口上没有监听者"),
		cause("status 28: the server called rdma_reject, or its process died while the request waited", "status 28：server 调用了 rdma_reject，或请求等待时它的进程死了"),
	}},
	{9, text.Text{EN: "the connection is established: both QPs are ready to send", ZH: "连接已建立：两端的 QP 都可以发送了"}, nil},
	{10, text.Text{EN: "the connection is gone: the peer's DREQ arrived (it called rdma_disconnect), or this side's own rdma_disconnect finished", ZH: "连接断了：对端的 DREQ 到了（它调用了 rdma_disconnect），或本端自己的 rdma_disconnect 完成了"}, []Cause{
		cause("the peer finished and disconnected (the normal end), or its process exited", "对端结束并断开（正常结束），或它的进程退出了"),
	}},
	{11, text.Text{EN: "the RDMA device went away: release everything on it", ZH: "RDMA 设备被移除了：释放其上的所有资源"}, nil},
	{12, text.Text{EN: "a multicast join (rdma_join_multicast) finished", ZH: "组播加入（rdma_join_multicast）完成"}, nil},
	{13, text.Text{EN: "a multicast group failed", ZH: "组播组出错"}, nil},
	{14, text.Text{EN: "the address the id was bound to changed (e.g. a bonding failover)", ZH: "id 绑定的地址变了（例如 bonding 切换）"}, nil},
	{15, text.Text{EN: "the QP has left the CM's timewait state and may be reused", ZH: "QP 已离开 CM 的 timewait 状态，可以重用"}, nil},
}

// rejectCauses are the REJ reasons a learner meets as event->status of
// RDMA_CM_EVENT_REJECTED; wire.RejectReasonName names every reason.
var rejectCauses = []entry{
	{8, text.Text{EN: "the CM found no listener for the connection's service ID (the port)", ZH: "CM 找不到这个连接服务 ID（端口）的监听者"}, []Cause{
		cause("the server is not running, or listens on another port or address", "server 没有运行，或监听的是别的端口或地址"),
	}},
	{28, text.Text{EN: "the peer's application refused the connection (rdma_reject)", ZH: "对端的应用拒绝了连接（rdma_reject）"}, []Cause{
		cause("the server called rdma_reject (e.g. it serves one client and already has one)", "server 调用了 rdma_reject（例如它只服务一个 client，而已经有一个了）"),
		cause("the server's process died while the connection request waited for it", "连接请求等待时 server 的进程死了"),
	}},
}
