package pane

import (
	"strings"

	"github.com/rdmatour/rdmatour/text"
)

// BackendWhy is why the backend was chosen, in the UI's language. The
// reasons come from the command line in English; the known ones are
// translated, and an error's own text stays as the system gave it.
func (in *Input) BackendWhy(why string) string {
	if in.Lang != text.ZH {
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
