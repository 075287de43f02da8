package pcapview

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rdmatour/rdmatour/text"
)

// Problem is why a file could not be read as a RoCEv2 capture.
type Problem int

const (
	NotCapture Problem = iota // neither pcap nor pcapng
	Truncated                 // the file ends inside a record
	Damaged                   // a record the reader refuses
	NoRoCE                    // a capture, but no packet to UDP 4791
	TooLarge                  // over MaxFileSize
)

// FileError is a capture that cannot be shown, with what it is and
// where it goes wrong.
type FileError struct {
	Problem Problem
	Format  Format
	Packet  int   // Truncated, Damaged: the record (1-based) that is cut or bad
	Offset  int64 // Truncated: where that record starts (pcap; -1 unknown)
	Size    int64 // the file's size in bytes
	Head    []byte
	Detail  string         // what the reader said
	Frames  int            // NoRoCE: how many frames there were
	Other   map[string]int // NoRoCE: what they were
}

func (e *FileError) Error() string { return e.Text().EN }

// Text says what is wrong and what to do, in both languages.
func (e *FileError) Text() text.Text {
	switch e.Problem {
	case NotCapture:
		return text.Text{
			EN: fmt.Sprintf("not a capture file: it starts with %s (a pcap file starts with d4 c3 b2 a1 or a1 b2 c3 d4, pcapng with 0a 0d 0d 0a); write one with tcpdump -w FILE or rdmatour --pcap FILE", hexBytes(e.Head, text.EN)),
			ZH: fmt.Sprintf("不是抓包文件：开头是 %s（pcap 文件以 d4 c3 b2 a1 或 a1 b2 c3 d4 开头，pcapng 以 0a 0d 0d 0a 开头）；用 tcpdump -w FILE 或 rdmatour --pcap FILE 生成一个", hexBytes(e.Head, text.ZH)),
		}
	case Truncated:
		return e.truncatedText()
	case Damaged:
		return text.Text{
			EN: fmt.Sprintf("the %s file is damaged at record %d (%s): open it in Wireshark to see how far it is readable, or capture again", e.Format, e.Packet, e.Detail),
			ZH: fmt.Sprintf("这个 %s 文件在第 %d 条记录处损坏（%s）：用 Wireshark 打开看看能读到哪里，或者重新抓包", e.Format, e.Packet, e.Detail),
		}
	case NoRoCE:
		return text.Text{
			EN: fmt.Sprintf("no RoCEv2 packets: none of the %d frames goes to UDP port 4791 (%s); capture on the interface RDMA uses, e.g. tcpdump -i eth0 -w FILE udp port 4791", e.Frames, e.otherText(text.EN)),
			ZH: fmt.Sprintf("没有 RoCEv2 报文：%d 个帧里没有一个发往 UDP 4791 端口（%s）；请在 RDMA 所用的网口上抓包，例如 tcpdump -i eth0 -w FILE udp port 4791", e.Frames, e.otherText(text.ZH)),
		}
	}
	return text.Text{
		EN: fmt.Sprintf("the capture is %d bytes, more than the %d MiB this reader holds in memory: cut it first, e.g. editcap -c 10000 FILE part.pcap", e.Size, MaxFileSize>>20),
		ZH: fmt.Sprintf("这个抓包文件有 %d 字节，超过了本工具在内存里能放的 %d MiB：先切小，例如 editcap -c 10000 FILE part.pcap", e.Size, MaxFileSize>>20),
	}
}

// truncatedText says where the file ends: which record, and (pcap) at
// which byte it starts.
func (e *FileError) truncatedText() text.Text {
	if e.Packet == 0 {
		return text.Text{
			EN: fmt.Sprintf("the %s file is cut off: %d bytes, shorter than %s", e.Format, e.Size, e.Detail),
			ZH: fmt.Sprintf("这个 %s 文件被截断了：只有 %d 字节，不够 %s", e.Format, e.Size, "24 字节的文件头"),
		}
	}
	where := text.Text{EN: fmt.Sprintf("record %d", e.Packet), ZH: fmt.Sprintf("第 %d 条记录", e.Packet)}
	if e.Offset >= 0 {
		where.EN += fmt.Sprintf(" (it starts at byte %d)", e.Offset)
		where.ZH += fmt.Sprintf("（从第 %d 字节开始）", e.Offset)
	}
	return text.Text{
		EN: fmt.Sprintf("the %s file is cut off inside %s: the file ends at byte %d. The %d packets before it are shown; a capture stopped with Ctrl-C is complete, one copied while tcpdump was still writing is not", e.Format, where.EN, e.Size, e.Packet-1),
		ZH: fmt.Sprintf("这个 %s 文件在%s中间被截断：文件在第 %d 字节结束。前面的 %d 个报文已显示；用 Ctrl-C 停下的抓包是完整的，tcpdump 还在写时复制出来的不是", e.Format, where.ZH, e.Size, e.Packet-1),
	}
}

// otherText lists what the non-RoCE frames were, most first.
func (e *FileError) otherText(lang text.Lang) string {
	if len(e.Other) == 0 {
		return text.Text{EN: "the file has no frames at all", ZH: "文件里一个帧也没有"}.In(lang)
	}
	kinds := make([]string, 0, len(e.Other))
	for k := range e.Other {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if e.Other[kinds[i]] != e.Other[kinds[j]] {
			return e.Other[kinds[i]] > e.Other[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", e.Other[k], k)
	}
	return strings.Join(parts, ", ")
}

// hexBytes shows a file's first bytes.
func hexBytes(b []byte, lang text.Lang) string {
	if len(b) == 0 {
		return text.Text{EN: "nothing (the file is empty)", ZH: "什么也没有（文件是空的）"}.In(lang)
	}
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = fmt.Sprintf("%02x", x)
	}
	return strings.Join(parts, " ")
}
