package steps

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Problem is a failure explained for a learner: what happened and what to
// do, in both languages, wrapping the underlying error.
type Problem struct {
	What text.Text
	Fix  text.Text
	Err  error
	// quiet leaves Err out of the explanation when What already says it.
	quiet bool
}

func (p *Problem) Error() string {
	msg := p.What.EN
	if p.Err != nil {
		msg += ": " + p.Err.Error()
	}
	return msg
}

func (p *Problem) Unwrap() error { return p.Err }

// localizedError is an error that can say itself in a learner's
// language (CMEventError).
type localizedError interface{ ErrorIn(lang text.Lang) string }

// errorIn is err's text in lang where err can give it, else its Error().
func errorIn(err error, lang text.Lang) string {
	if le, ok := err.(localizedError); ok {
		return le.ErrorIn(lang)
	}
	return err.Error()
}

func problem(err error, what, fix text.Text) error {
	return &Problem{What: what, Fix: fix, Err: err}
}

// Explain turns any error from a step into one line a learner can act on
// (English).
func Explain(err error) string { return ExplainIn(err, text.EN) }

// ExplainIn is Explain in lang (Both reads as English: show each in turn).
func ExplainIn(err error, lang text.Lang) string {
	if err == nil {
		return ""
	}
	var p *Problem
	if errors.As(err, &p) {
		msg := p.What.In(lang)
		if p.Err != nil && !p.quiet {
			if lang == text.ZH {
				msg += "（" + errorIn(p.Err, lang) + "）"
			} else {
				msg += " (" + p.Err.Error() + ")"
			}
		}
		if fix := p.Fix.In(lang); fix != "" {
			if lang == text.ZH {
				msg += "。" + fix
			} else {
				msg += ". " + sentence(fix)
			}
		}
		return msg
	}
	p = classify(err)
	return ExplainIn(p, lang)
}

// ExplainWhatIn is ExplainIn without what to do: the words for an error
// a lesson expected, where "start both sides again" would contradict
// "the point of this lesson".
func ExplainWhatIn(err error, lang text.Lang) string {
	if err == nil {
		return ""
	}
	var p *Problem
	if !errors.As(err, &p) {
		p = classify(err)
	}
	what := *p
	what.Fix = text.Text{}
	return ExplainIn(&what, lang)
}

// sentence is s starting a sentence: its first letter capitalised
// when it is a lower-case ASCII letter (a fix starting with a flag or a
// `command` stays as written).
func sentence(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// classify recognises the errors every step can meet.
func classify(err error) *Problem {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Problem{Err: err,
			What: text.Text{EN: "timed out waiting for the peer", ZH: "等待对端超时"},
			Fix: text.Text{EN: "check that the other side is running and reachable, or raise --timeout",
				ZH: "确认另一端在运行、网络可达，或调大 --timeout"}}
	case errors.Is(err, context.Canceled):
		return &Problem{Err: err,
			What: text.Text{EN: "cancelled", ZH: "已取消"}}
	case errors.As(err, new(*CompletionError)):
		var ce *CompletionError
		errors.As(err, &ce)
		return &Problem{Err: err, quiet: true,
			What: text.Text{EN: fmt.Sprintf("%s: status %q (wr_id %d)", ce.What, ce.WC.Status.String(), ce.WC.WRID),
				ZH: fmt.Sprintf("%s：状态 %q（wr_id %d）", ce.WhatIn(text.ZH), ce.WC.Status.String(), ce.WC.WRID)},
			Fix: statusFix(ce.WC.Status)}
	case (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOMEM)) && verbs.FuncOf(err) == "ibv_reg_mr":
		return &Problem{Err: err,
			What: text.Text{EN: "ibv_reg_mr could not pin the buffer: the locked-memory limit (ulimit -l) is too low",
				ZH: "ibv_reg_mr 无法锁定（pin）这块内存：locked memory 上限（ulimit -l）太小"},
			Fix: text.Text{EN: "run `ulimit -l unlimited` (as root) or raise memlock in /etc/security/limits.conf, then start again",
				ZH: "以 root 执行 `ulimit -l unlimited`，或在 /etc/security/limits.conf 里调大 memlock，然后重新运行"}}
	}
	if fn := verbs.FuncOf(err); fn != "" {
		return &Problem{Err: err, What: text.Text{EN: fn + " failed", ZH: fn + " 失败"}}
	}
	return &Problem{Err: err, What: text.Text{EN: "the call failed", ZH: "调用失败"}}
}

// statusFix says where to look for each completion status a learner meets.
func statusFix(st verbs.WCStatus) text.Text {
	switch st {
	case verbs.WCRemAccessErr:
		return text.Text{EN: "check the rkey, that [remote_addr, remote_addr+length) lies inside the peer's MR, and the MR's IBV_ACCESS_REMOTE_* flags",
			ZH: "检查 rkey、[remote_addr, remote_addr+length) 是否落在对端 MR 之内，以及 MR 的 IBV_ACCESS_REMOTE_* 权限"}
	case verbs.WCRNRRetryExcErr:
		return text.Text{EN: "the receiver had no RECV posted: post it before the peer SENDs, or raise rnr_retry_count (7 = forever)",
			ZH: "接收端没有 post RECV：在对端 SEND 之前先 post，或者调大 rnr_retry_count（7 表示无限重试）"}
	case verbs.WCWRFlushErr:
		return text.Text{EN: "an earlier error moved the QP to ERR and flushed this WR: look at the first failed completion",
			ZH: "之前的错误把 QP 置为 ERR，这个 WR 是被 flush 掉的：去看第一个失败的完成"}
	case verbs.WCRetryExcErr:
		return text.Text{EN: "the peer stopped answering: is it still running and reachable?", ZH: "对端不再应答：它还在运行、网络还通吗？"}
	case verbs.WCLocProtErr, verbs.WCLocLenErr:
		return text.Text{EN: "check the local SGE: lkey, address and length must lie inside a local MR", ZH: "检查本地 SGE：lkey、地址和长度必须落在本地 MR 之内"}
	}
	return text.Text{}
}
