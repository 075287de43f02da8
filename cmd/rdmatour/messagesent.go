package main

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// messageSent refuses a --message (given says the flag was) that the
// tour would drop without a word (E4 of the hostile review): the read and
// atomic tours carry none. A lesson runs on its own tour.
func messageSent(given bool, tour steps.TourKind, lesson *steps.Lesson) error {
	if !given {
		return nil
	}
	if lesson != nil {
		tour = lesson.Tour
	}
	if d, ok := steps.TourOf(tour); !ok || d.SendsMessage {
		return nil
	}
	return usageText(text.Text{EN: fmt.Sprintf("--message with --tour %s: this tour sends no message (the client only reads or changes the server's memory); leave --message out, or run --tour write or ud", tour),
		ZH: fmt.Sprintf("--message 和 --tour %s 不搭：这个教程不发送消息（client 只读取或修改 server 的内存）；去掉 --message，或者改用 --tour write 或 ud", tour)})
}
