package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/rdmacore"
)

func try(p verbs.Provider, dst string) {
	ch, err := p.CreateEventChannel()
	if err != nil {
		fmt.Println("channel", err)
		return
	}
	defer ch.Destroy()
	id, err := ch.CreateID(verbs.PSTCP)
	if err != nil {
		fmt.Println("id", err)
		return
	}
	defer id.Destroy()
	start := time.Now()
	err = id.ResolveAddr(netip.AddrPort{}, netip.MustParseAddrPort(dst), 2000*time.Millisecond)
	if err != nil {
		fmt.Printf("%s: resolve_addr returned %v after %v\n", dst, err, time.Since(start))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev, err := ch.GetEvent(ctx)
	fmt.Printf("%s: event %v status %d err %v after %v\n", dst, ev.Type, ev.Status, err, time.Since(start))
}

func main() {
	p, err := rdmacore.Open()
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	out, _ := exec.Command("ip", "addr").CombinedOutput()
	fmt.Println(string(out))
	out, _ = exec.Command("ip", "route").CombinedOutput()
	fmt.Println(string(out))
	for _, d := range []string{"10.0.2.99:7471", "192.0.2.1:7471", "127.0.0.1:7471", "10.0.2.2:7471"} {
		try(p, d)
	}
	out, err = exec.Command("ip", "addr", "add", "10.99.0.1/32", "dev", "lo").CombinedOutput()
	fmt.Println("ip addr add lo:", string(out), err)
	try(p, "10.99.0.1:7471")
	out, err = exec.Command("sh", "-c", "modprobe dummy; ip link add dummy9 type dummy && ip addr add 10.98.0.1/24 dev dummy9 && ip link set dummy9 up").CombinedOutput()
	fmt.Println("dummy:", string(out), err)
	try(p, "10.98.0.1:7471")
	try(p, "10.98.0.7:7471")
	// reg_mr REMOTE_WRITE without LOCAL_WRITE
	devs, _ := p.Devices()
	fmt.Println(devs)
	ch, _ := p.CreateEventChannel()
	id, _ := ch.CreateID(verbs.PSTCP)
	id.ResolveAddr(netip.AddrPort{}, netip.MustParseAddrPort("10.0.2.15:7471"), 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev, err := ch.GetEvent(ctx)
	fmt.Println(ev.Type, err)
	pd, err := id.Device().AllocPD()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range []verbs.Access{verbs.AccessRemoteWrite, verbs.AccessRemoteAtomic, verbs.AccessRemoteRead, verbs.AccessRemoteWrite | verbs.AccessRemoteRead} {
		mr, err := pd.RegMR(4096, a)
		fmt.Printf("reg_mr %v: %v\n", a, err)
		if mr != nil {
			fmt.Printf("  lkey %#x rkey %#x\n", mr.LKey(), mr.RKey())
			mr.Dereg()
		}
	}
}
