package steps

import "strings"

// NextToTry says, at the end of a tour, what to run next: a lesson, the
// other notify modes, the manual track, export-c — leaving out what this
// run already was.
func NextToTry(cfg Config) Text {
	var en, zh []string
	next := TryNext(cfg.Lesson)
	if cfg.Lesson == "" {
		en = append(en, "a lesson, the tour with one deliberate mistake: --lesson "+next.Name+" on both sides ("+next.Title.EN+"; rdmatour lessons lists them all)")
		zh = append(zh, "一节课程，即故意犯一个错的教程：两端都加 --lesson "+next.Name+"（"+next.Title.ZH+"；rdmatour lessons 列出全部）")
	} else {
		en = append(en, "the next lesson: --lesson "+next.Name+" ("+next.Title.EN+"; rdmatour lessons lists them all)")
		zh = append(zh, "下一课：--lesson "+next.Name+"（"+next.Title.ZH+"；rdmatour lessons 列出全部）")
	}
	var others []string
	for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
		if n != cfg.Notify {
			others = append(others, "--notify "+n.String())
		}
	}
	if cfg.Lesson == "" {
		en = append(en, "another way to tell the server ("+strings.Join(others, " or ")+")")
		zh = append(zh, "换一种通知 server 的方式（"+strings.Join(others, " 或 ")+"）")
	}
	if cfg.Track != TrackManual && cfg.Lesson == "" {
		en = append(en, "the QP brought up by hand (--track manual)")
		zh = append(zh, "手动把 QP 推到 RTS（--track manual）")
	}
	en = append(en, "the whole tour as one C program (rdmatour export-c "+cfg.Role.String()+")")
	zh = append(zh, "把整个教程导出成一个 C 程序（rdmatour export-c "+cfg.Role.String()+"）")
	return Text{"Try next: " + strings.Join(en, "; ") + ".", "接下来可以试试：" + strings.Join(zh, "；") + "。"}
}

// NextToTryShort is NextToTry as the commands alone, for one banner line.
func NextToTryShort(cfg Config) Text {
	cmds := []string{"--lesson " + TryNext(cfg.Lesson).Name, "rdmatour lessons"}
	if cfg.Lesson == "" {
		for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
			if n != cfg.Notify {
				cmds = append(cmds, "--notify "+n.String())
			}
		}
		if cfg.Track != TrackManual {
			cmds = append(cmds, "--track manual")
		}
	}
	cmds = append(cmds, "rdmatour export-c")
	list := strings.Join(cmds, " · ")
	return Text{"Try next: " + list, "接下来可以试试：" + list}
}
