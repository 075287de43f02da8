package workshop

import (
	"errors"
	"strings"

	"github.com/rdmatour/rdmatour/text"

	"github.com/rdmatour/rdmatour/steps"
)

// An attendee's Session explains its failures as a one-client server
// would: "start the server again, then the client", "start both sides
// again". In a workshop that advice is wrong: restarting the server ends
// every attendee's tour (hostile review W3b). The roster keeps what
// happened and gives the room's advice instead.

// roomFix is what the roster advises for one attendee's failure.
func roomFix() text.Text {
	return text.Text{EN: "the attendee starts their client again; the room goes on serving everyone else",
		ZH: "请这位学员重新启动自己的 client；workshop 教室照常服务其他人"}
}

// attendeeFailure is err explained for the roster in lang: what the
// attendee's Session saw, with the room's advice in place of its own.
func attendeeFailure(err error, lang text.Lang) string {
	var p *steps.Problem
	if errors.As(err, &p) {
		withRoomFix := *p
		withRoomFix.Fix = roomFix()
		return steps.ExplainIn(&withRoomFix, lang)
	}
	return withAdvice(steps.ExplainIn(err, lang), lang)
}

// withAdvice is said, ended as a sentence, and the room's advice.
func withAdvice(said string, lang text.Lang) string {
	if lang == text.ZH {
		return strings.TrimSuffix(said, "。") + "。" + roomFix().ZH
	}
	fix := roomFix().EN
	return strings.TrimSuffix(said, ".") + ". " + strings.ToUpper(fix[:1]) + fix[1:]
}
