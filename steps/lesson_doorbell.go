package steps

import "github.com/rdmatour/rdmatour/text"

// The doorbell-ordering lesson: an explanation, no mistake. The tour is
// the doorbell tour unchanged; the question is the point.

func lessonDoorbellOrdering() Lesson {
	return Lesson{Name: "doorbell-ordering", Notify: NotifyDoorbell, by: noMistake,
		Title:   text.Text{EN: "Is a flag after the data a completion?", ZH: "数据后面写个标志位，算完成通知吗？"},
		Summary: text.Text{EN: "an explanation: why polling a doorbell is not a portable completion guarantee, and what to use instead", ZH: "讲解课：为什么轮询 doorbell 不是可移植的完成保证，以及应该用什么"},
		predict: predictDoorbellOrdering}
}

func predictDoorbellOrdering(cfg Config) *Prediction {
	if cfg.Role != Server {
		return nil // the answer shows on the server
	}
	return &Prediction{At: IDWaitNotify,
		Question: text.Text{EN: "The client WRITEs the message, then 8 bytes to the doorbell. When the server's CPU sees doorbell = 1, what is in its buffer?",
			ZH: "client 先 WRITE 消息，再往 doorbell 写 8 字节。server 的 CPU 看到 doorbell = 1 时，buffer 里是什么？"},
		Choices: []Choice{
			landedChoice(true, text.Text{EN: "the whole message", ZH: "完整的消息"}),
			landedChoice(false, text.Text{EN: "nothing yet: still zeros", ZH: "还什么都没有：全是 0"}),
			failedChoice(text.Text{EN: "the wait fails with an error", ZH: "等待以错误告终"}),
		}}
}
