package sim

import (
	"io"
	"net"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// The sim's RDMA WRITE throughput next to a plain TCP copy of the same
// bytes over loopback. Both sides run in this process (two Providers).

const benchWindow = 16

func BenchmarkWrite(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10} {
		b.Run(sizeName(size), func(b *testing.B) {
			srv, cli := connectPair(b, pairCfg{cqe: 256})
			remote := srv.regMR(b, size*benchWindow, rwAccess)
			local := cli.regMR(b, size*benchWindow, verbs.AccessLocalWrite)
			b.SetBytes(int64(size))
			b.ResetTimer()
			outstanding, posted := 0, 0
			for done := 0; done < b.N; {
				for outstanding < benchWindow && posted < b.N {
					slot := posted % benchWindow
					err := cli.qp.PostSend(verbs.SendWR{WRID: uint64(posted), Opcode: verbs.WRRDMAWrite,
						SGList: sge(local, slot*size, size), Flags: verbs.SendSignaled,
						RemoteAddr: remote.Addr() + uint64(slot*size), RKey: remote.RKey()})
					if err != nil {
						b.Fatal(err)
					}
					posted++
					outstanding++
				}
				wcs, err := cli.cq.Poll(benchWindow)
				if err != nil {
					b.Fatal(err)
				}
				for _, wc := range wcs {
					if wc.Status != verbs.WCSuccess {
						b.Fatal(wc.Status)
					}
				}
				done += len(wcs)
				outstanding -= len(wcs)
			}
			b.StopTimer()
		})
	}
}

func BenchmarkTCPCopy(b *testing.B) {
	for _, size := range []int{4 << 10, 64 << 10} {
		b.Run(sizeName(size), func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			must(b, err)
			defer ln.Close()
			done := make(chan int64)
			go func() {
				c, err := ln.Accept()
				if err != nil {
					done <- 0
					return
				}
				n, _ := io.Copy(io.Discard, c)
				c.Close()
				done <- n
			}()
			c, err := net.Dial("tcp", ln.Addr().String())
			must(b, err)
			buf := make([]byte, size)
			b.SetBytes(int64(size))
			b.ResetTimer()
			for range b.N {
				if _, err := c.Write(buf); err != nil {
					b.Fatal(err)
				}
			}
			c.Close()
			<-done
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<10 {
		return itoa(n>>10) + "KiB"
	}
	return itoa(n) + "B"
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
