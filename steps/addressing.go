package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Addressing on the manual track: at INIT → RTR the learner sees the
// port's GID table and active MTU next to what the address vector and
// path_mtu say, may choose sgid_index and is_global (path_mtu is a field
// of editqp.go), and a refused ibv_modify_qp is explained by what the
// kernel checked: it says only EINVAL or ENODATA, so the step names the
// attribute. Measured on rxe: TestAddressingFacts (verbs/rdmacore).

// addressingFields are modify-rtr's address vector fields.
func addressingFields() []EditField {
	return []EditField{
		{Step: IDModifyRTR, Name: "sgid_index", CName: "attr.ah_attr.grh.sgid_index", Kind: EditInt, Min: 0, Max: 255,
			Explain: text.Text{EN: "Which entry of the port's GID table is the source address of every packet: over RoCE v2 over IPv4, the entry with this side's IPv4 address.",
				ZH: "端口 GID 表里的哪一条作为每个报文的源地址：在 IPv4 上跑 RoCE v2 时，应是带本端 IPv4 地址的那一条。"},
			fallback: fromInitQPAttr},
		{Step: IDModifyRTR, Name: "is_global", CName: "attr.ah_attr.is_global", Kind: EditInt, Min: 0, Max: 1,
			Explain: text.Text{EN: "Whether packets carry a GRH (the GIDs). RoCE addresses every packet by GID, so it must be 1; only InfiniBand inside one subnet does without.",
				ZH: "报文是否带 GRH（即 GID）。RoCE 的每个报文都按 GID 寻址，所以必须是 1；只有 InfiniBand 在同一子网内才可以不带。"},
			fallback: fromInitQPAttr},
	}
}

// editAddressing applies modify-rtr's sgid_index and is_global edits.
func (s *Session) editAddressing(step StepID, a *verbs.QPAttr, y youWas) {
	if step != IDModifyRTR {
		return
	}
	a.AH.SGIDIndex = uint8(s.editNum(step, "sgid_index", "sgid_index", int64(a.AH.SGIDIndex), y))
	g := int64(0)
	if a.AH.IsGlobal {
		g = 1
	}
	a.AH.IsGlobal = s.editNum(step, "is_global", "is_global", g, y) != 0
}

// portView is the port as the RTR step shows it (ibv_query_port and the
// GID table); ok is false when the device cannot be asked.
func (s *Session) portView() (verbs.PortAttr, bool) {
	if s.dev == nil {
		return verbs.PortAttr{}, false
	}
	pa, err := s.dev.QueryPort(1)
	return pa, err == nil
}

// addressKVs are the port's active MTU and GID table, the entry the
// address vector names marked.
func addressKVs(pa verbs.PortAttr, a verbs.QPAttr) []KV {
	kvs := []KV{result(resPortActiveMTU, fmt.Sprintf("%s (max_mtu %s)", verbs.MTUName(pa.ActiveMTU), verbs.MTUName(pa.MaxMTU)))}
	for _, g := range pa.GIDs {
		v := fmt.Sprintf("%s %s", g.Type, g.GID)
		if g.Index == int(a.AH.SGIDIndex) {
			v += "  ← sgid_index"
		}
		kvs = append(kvs, KV{Name: text.Text{EN: fmt.Sprintf("GID [%d]", g.Index), ZH: fmt.Sprintf("GID [%d]", g.Index)}, Value: text.Text{EN: v, ZH: v}})
	}
	return kvs
}

// modifyRefused explains a refused ibv_modify_qp from what the kernel
// checks, in its order: the address vector in the core (_ib_modify_qp:
// rdma_fill_sgid_attr looks the source GID up, rdma_check_ah_attr wants
// a GRH on RoCE, ib_resolve_eth_dmac a route), then the driver
// (rxe_qp_chk_attr: ib_modify_qp_is_ok's state table, then the values).
// The kernel gives one errno; this names the attribute. err is returned
// as it is when none of these explains it.
func modifyRefused(err error, cur, next verbs.QPState, a verbs.QPAttr, m verbs.QPAttrMask, pa verbs.PortAttr, known bool) error {
	if m&verbs.QPAttrAV != 0 && !a.AH.IsGlobal {
		return problem(err, text.Text{EN: "ah_attr.is_global = 0: no GRH", ZH: "ah_attr.is_global = 0：没有 GRH"},
			text.Text{EN: "over RoCE every packet is addressed by GID, so the address vector must carry a GRH (rdma_check_ah_attr); set is_global = 1 with the peer's GID as dgid",
				ZH: "RoCE 上每个报文都按 GID 寻址，地址向量必须带 GRH（rdma_check_ah_attr）；把 is_global 设为 1，dgid 填对端的 GID"})
	}
	if m&verbs.QPAttrAV != 0 && known {
		if p := gidRefused(err, a, pa); p != nil {
			return p
		}
	}
	req, opt, ok := verbs.RCTransition(cur, next)
	body := m &^ verbs.QPAttrState
	if missing := req &^ body; ok && missing != 0 {
		return problem(err, text.Text{EN: fmt.Sprintf("%s → %s requires %s in the mask, and it is not there", cur, next, missing),
			ZH: fmt.Sprintf("%s → %s 要求 mask 里有 %s，但它不在", cur, next, missing)},
			text.Text{EN: "the driver checks the mask against the IBA's state table (rxe_qp_chk_attr calls ib_modify_qp_is_ok) and answers EINVAL without saying which bit: every attribute the transition requires must be in the mask",
				ZH: "驱动拿 mask 对照 IBA 的状态表（rxe_qp_chk_attr 调用 ib_modify_qp_is_ok），回 EINVAL，却不说缺哪一位：这次迁移要求的每个属性都必须在 mask 里"})
	}
	if extra := body &^ (req | opt); ok && extra != 0 {
		return problem(err, text.Text{EN: fmt.Sprintf("%s → %s does not take %s", cur, next, extra), ZH: fmt.Sprintf("%s → %s 不接受 %s", cur, next, extra)},
			text.Text{EN: "the IBA's state table allows each transition a few optional attributes and no others (ib_modify_qp_is_ok)", ZH: "IBA 的状态表只允许每次迁移带少数几个可选属性，别的都不行（ib_modify_qp_is_ok）"})
	}
	return mtuRefused(err, a, m, pa, known)
}

// gidRefused explains a refused sgid_index from the port's GID table.
func gidRefused(err error, a verbs.QPAttr, pa verbs.PortAttr) error {
	idx := int(a.AH.SGIDIndex)
	for _, g := range pa.GIDs {
		if g.Index != idx {
			continue
		}
		if g.GID.Is4In6() != a.AH.DGID.Is4In6() {
			return problem(err, text.Text{EN: fmt.Sprintf("sgid_index %d is %s, the peer's dgid is %s", idx, g.GID, a.AH.DGID),
				ZH: fmt.Sprintf("sgid_index %d 是 %s，对端的 dgid 是 %s", idx, g.GID, a.AH.DGID)},
				text.Text{EN: "the kernel must find a route from the source GID's address to the destination's to fill in the MAC (ib_resolve_eth_dmac): an IPv6 link-local source cannot reach an IPv4 peer. Use the entry with this side's IPv4 address, the one rdma_cm chose",
					ZH: "内核要从源 GID 的地址找到通往目的地址的路由，才能填出 MAC（ib_resolve_eth_dmac）：IPv6 链路本地的源地址到不了 IPv4 的对端。请用带本端 IPv4 地址的那一条，也就是 rdma_cm 选的那条"})
		}
		if g.Type == "RoCE v1" {
			return problem(err, text.Text{EN: fmt.Sprintf("sgid_index %d is a RoCE v1 GID", idx), ZH: fmt.Sprintf("sgid_index %d 是一条 RoCE v1 GID", idx)},
				text.Text{EN: "its packets would be RoCE v1 (Ethernet type 0x8915, no IP or UDP), which this NIC does not send; pick the RoCE v2 entry of the same address",
					ZH: "用它发出的报文会是 RoCE v1（以太网类型 0x8915，没有 IP 和 UDP），这块网卡不发；请选同一地址的 RoCE v2 那一条"})
		}
		return nil
	}
	return problem(err, text.Text{EN: fmt.Sprintf("sgid_index %d: the port's GID table has no entry there", idx), ZH: fmt.Sprintf("sgid_index %d：端口的 GID 表在这个位置没有条目", idx)},
		text.Text{EN: "ibv_modify_qp looks the source GID up before anything else about the address (rdma_get_gid_attr) and says ENODATA for an empty slot; the table is shown with this step",
			ZH: "ibv_modify_qp 首先查源 GID（rdma_get_gid_attr），空位置就回 ENODATA；这一步的结果里列出了 GID 表"})
}

// mtuRefused explains a path_mtu the device refused.
func mtuRefused(err error, a verbs.QPAttr, m verbs.QPAttrMask, pa verbs.PortAttr, known bool) error {
	if m&verbs.QPAttrPathMTU != 0 && known && a.PathMTU > pa.MaxMTU {
		return problem(err, text.Text{EN: fmt.Sprintf("path_mtu %s is above the port's max_mtu %s", verbs.MTUName(a.PathMTU), verbs.MTUName(pa.MaxMTU)),
			ZH: fmt.Sprintf("path_mtu %s 超过了端口的 max_mtu %s", verbs.MTUName(a.PathMTU), verbs.MTUName(pa.MaxMTU))},
			text.Text{EN: "the driver checks path_mtu against max_mtu (rxe_qp_chk_attr)", ZH: "驱动拿 path_mtu 和 max_mtu 比较（rxe_qp_chk_attr）"})
	}
	return err
}
