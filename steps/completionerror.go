package steps

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// CompletionError is a work completion with a status other than success.
type CompletionError struct {
	What string
	WC   verbs.WC
}

func (e *CompletionError) Error() string {
	return fmt.Sprintf("%s failed: status=%s", e.What, e.WC.Status)
}

// WhatIn is What in lang: the work requests' names are verbs' own
// (RDMA_WRITE, RECV), the words around them translated.
func (e *CompletionError) WhatIn(lang text.Lang) string {
	if lang != text.ZH {
		return e.What
	}
	switch e.What {
	case "the notification's RECV completion":
		return "通知用的 RECV 的完成"
	case "the attendee's work request":
		return "学员的 work request"
	case "UD receive":
		return "UD 接收"
	case "UD SEND or the answer's RECV":
		return "UD SEND 或应答的 RECV"
	}
	if wr, ok := strings.CutSuffix(e.What, " completion"); ok {
		return wr + " 的完成"
	}
	return e.What
}
