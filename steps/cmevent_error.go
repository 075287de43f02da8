package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// CMEventError is an rdma_cm event the tour did not expect.
type CMEventError struct {
	Got verbs.CMEventType
	// Want is the event the tour waited for; -1 when it waited for none.
	Want verbs.CMEventType
	// Status is event->status.
	Status int
}

func (e *CMEventError) Error() string {
	if e.Want < 0 {
		return fmt.Sprintf("got %s (status %d)", e.Got, e.Status)
	}
	return fmt.Sprintf("got %s (status %d), expected %s", e.Got, e.Status, e.Want)
}

// ErrorIn is Error in lang: ExplainIn shows it inside a
// learner's explanation. Event names stay as librdmacm spells them.
func (e *CMEventError) ErrorIn(lang text.Lang) string {
	if lang != text.ZH {
		return e.Error()
	}
	if e.Want < 0 {
		return fmt.Sprintf("收到 %s（status %d）", e.Got, e.Status)
	}
	return fmt.Sprintf("收到 %s（status %d），预期是 %s", e.Got, e.Status, e.Want)
}
