package steps

import (
	"context"
	"errors"
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

// Problem is a failure explained for a learner: what happened and what to
// do, in both languages, wrapping the underlying error.
type Problem struct {
	What Text
	Fix  Text
	Err  error
}

func (p *Problem) Error() string {
	msg := p.What.EN
	if p.Err != nil {
		msg += ": " + p.Err.Error()
	}
	return msg
}

func (p *Problem) Unwrap() error { return p.Err }

func problem(err error, what, fix Text) error {
	return &Problem{What: what, Fix: fix, Err: err}
}

// Explain turns any error from a step into one line a learner can act on
// (English).
func Explain(err error) string { return ExplainIn(err, "en") }

// ExplainIn is Explain in lang ("en" or "zh").
func ExplainIn(err error, lang string) string {
	if err == nil {
		return ""
	}
	var p *Problem
	if errors.As(err, &p) {
		msg := p.What.In(lang)
		if p.Err != nil {
			msg += " (" + p.Err.Error() + ")"
		}
		if fix := p.Fix.In(lang); fix != "" {
			if lang == "zh" {
				msg += "。" + fix
			} else {
				msg += ". " + fix
			}
		}
		return msg
	}
	p = classify(err)
	return ExplainIn(p, lang)
}

// classify recognises the errors every step can meet.
func classify(err error) *Problem {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Problem{Err: err,
			What: Text{"timed out waiting for the peer", "等待对端超时"},
			Fix: Text{"check that the other side is running and reachable, or raise --timeout",
				"确认另一端在运行、网络可达，或调大 --timeout"}}
	case errors.Is(err, context.Canceled):
		return &Problem{Err: err,
			What: Text{"cancelled", "已取消"}}
	case errors.Is(err, syscall.ENOMEM) && verbs.FuncOf(err) == "ibv_reg_mr":
		return &Problem{Err: err,
			What: Text{"ibv_reg_mr could not pin the buffer: the locked-memory limit (ulimit -l) is too low",
				"ibv_reg_mr 无法锁定（pin）这块内存：locked memory 上限（ulimit -l）太小"},
			Fix: Text{"run `ulimit -l unlimited` (as root) or raise memlock in /etc/security/limits.conf, then start again",
				"以 root 执行 `ulimit -l unlimited`，或在 /etc/security/limits.conf 里调大 memlock，然后重新运行"}}
	}
	return &Problem{Err: err, What: Text{"the call failed", "调用失败"}}
}
