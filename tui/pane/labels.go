package pane

import (
	"strings"

	"github.com/rdmatour/rdmatour/steps"
)

// The UI's own words in Chinese, for text that comes from the steps and
// the command line as English labels: the names of a call's results and
// why a backend was chosen. Names that are C identifiers or fields
// (wr_id, byte_len, id->verbs, rkey) stay as they are, as the glossary
// keeps them. TestEveryResultNameHasChinese runs every tour and lesson and
// fails on a name missing here.

// resultNamesZH translates the names of the results a call shows.
var resultNamesZH = map[string]string{
	"QP after ibv_modify_qp":   "ibv_modify_qp 之后的 QP",
	"QP after rdma_disconnect": "rdma_disconnect 之后的 QP",
	"QP state":                 "QP 状态",
	"RNR NAK seen first":       "先看到的 RNR NAK",
	"hello sent":               "发出的 hello",
	"peer runs":                "对端在跑",
	"REP qp_num":               "REP 里的 qp_num",
	"REQ qp_num":               "REQ 里的 qp_num",
	"bound to":                 "绑定到",
	"buf addr":                 "buf 地址",
	"recv_buf addr":            "recv_buf 地址",
	"send_buf addr":            "send_buf 地址",
	"timeout":                  "超时",
	"buffer":                   "buffer 内容",
	"bytes":                    "字节数",
	"client QPN":               "client 的 QPN",
	"doorbell addr":            "doorbell 地址",
	"doorbell rkey":            "doorbell 的 rkey",
	"event":                    "事件",
	"from":                     "来自",
	"listening on":             "监听地址",
	"live objects left":        "仍存活的对象",
	"local":                    "本地地址",
	"notice":                   "通知内容",
	"notified by":              "通知方式",
	"port":                     "端口",
	"port space":               "端口空间",
	"private data":             "private data",
	"receive queue":            "接收队列",
	"remote addr":              "对端 addr",
	"remote rkey":              "对端 rkey",
	"remote size":              "对端 size",
	"returned":                 "返回值",
	"sent":                     "已发送",
	"server QPN":               "server 的 QPN",
	"state (ibv_query_qp)":     "状态（ibv_query_qp）",
	"to":                       "目标",
	"transition":               "状态转换",
	// the read and atomic tours
	"at":               "位置",
	"8-byte aligned":   "8 字节对齐",
	"started at":       "初始值",
	"READs answered":   "应答的 READ 数",
	"atomics answered": "应答的原子操作数",
	"compare held":     "比较成立",
	"counter":          "计数器",
	"counter now":      "计数器当前值",
	"device":           "设备",
	"old value":        "原值",
	"swap":             "swap 值",
	"target":           "目标",
}

// keptNames are result names that are the C field's own name.
var keptNames = map[string]bool{"status": true, "opcode": true, "lkey": true, "rkey": true, "access": true, "mask": true, "ec": true}

// isCName says a result name is a C identifier or field path, kept as is.
func isCName(name string) bool {
	return keptNames[name] || strings.ContainsAny(name, "_>") && !strings.Contains(name, " ")
}

// resultValuesZH translates the few result values that are words, not
// C names or numbers.
var resultValuesZH = map[string]string{
	"RDMA_PS_TCP (reliable connected)":   "RDMA_PS_TCP（可靠连接）",
	"1 RECV WQE posted":                  "已提交 1 个 RECV WQE",
	"NULL (the CM does not own this QP)": "NULL（这个 QP 不归 CM 管）",
	"(undefined: the completion failed)": "（未定义：这个完成是失败的）",
	"simulated":                          "模拟的（没有 fd）",
	"true":                               "是",
	"false":                              "否",
}

// resultValue is a result's value in the UI's language.
func (in *Input) resultValue(v string) string {
	if zh, ok := resultValuesZH[v]; ok && in.Lang == steps.LangZH {
		return zh
	}
	return v
}

// resultName is a result's name in the UI's language.
func (in *Input) resultName(name string) string {
	if in.Lang != steps.LangZH {
		return name
	}
	if zh, ok := resultNamesZH[name]; ok {
		return zh
	}
	return name
}

// BackendWhy is why the backend was chosen, in the UI's language. The
// reasons come from the command line in English; the known ones are
// translated, and an error's own text stays as the system gave it.
func (in *Input) BackendWhy(why string) string {
	if in.Lang != steps.LangZH {
		return why
	}
	switch {
	case why == "chosen with --backend sim":
		return "由 --backend sim 指定"
	case why == "real verbs (libibverbs + librdmacm)":
		return "真实 verbs（libibverbs + librdmacm）"
	case strings.HasPrefix(why, "no real RDMA for "):
		target, rest, _ := strings.Cut(strings.TrimPrefix(why, "no real RDMA for "), ": ")
		return target + " 没有可用的真实 RDMA，改用模拟网卡：" + rest
	case strings.HasPrefix(why, "real verbs need Linux and cgo"):
		return "这个 rdmatour 不含真实 verbs（需要 Linux 和 cgo），只有模拟网卡：" + why
	}
	return why
}
