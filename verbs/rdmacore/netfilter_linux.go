//go:build linux && cgo

package rdmacore

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

var _ verbs.ArrivalDropper = (*Provider)(nil)

// DropArriving adds the nftables rule that loses f's packets arriving at
// QP qpn (netfilter.go says why there and how they are counted); remove
// deletes its table. It refuses, saying what would make it work, when
// this process is not root, when nft is missing, and when the peer is on
// this host (rxe_loopback: its packets never meet netfilter).
func (p *Provider) DropArriving(qpn uint32, peer netip.Addr, f verbs.WireFaults) (func() error, error) {
	ruleset, err := nftRuleset(qpn, f)
	if err != nil {
		return nil, &verbs.Error{Func: "nft", Errno: syscall.EINVAL, Detail: err.Error()}
	}
	if os.Geteuid() != 0 {
		return nil, &verbs.Error{Func: "nft", Errno: syscall.EPERM, Detail: "adding a netfilter rule that drops packets needs root (CAP_NET_ADMIN)"}
	}
	nft, err := exec.LookPath("nft")
	if err != nil {
		return nil, &verbs.Error{Func: "nft", Errno: syscall.ENOENT, Detail: "no nft command to drop packets with (install the nftables package)"}
	}
	if local(peer) {
		return nil, &verbs.Error{Func: "nft", Errno: syscall.EINVAL, Detail: "the peer " + peer.String() +
			" is on this host, where rxe hands each packet to its own receive path (rxe_loopback), past netfilter: run the two sides on two hosts"}
	}
	table := nftTable(qpn)
	// A table of that name left by a killed run goes first.
	if err := runNft(nft, "add table ip "+table+"\ndelete table ip "+table+"\n"+ruleset); err != nil {
		return nil, err
	}
	return func() error { return runNft(nft, "delete table ip "+table+"\n") }, nil
}

// runNft feeds nft -f - the commands and says what nft said on failure.
func runNft(nft, commands string) error {
	cmd := exec.Command(nft, "-f", "-")
	cmd.Stdin = strings.NewReader(commands)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		errno := syscall.EIO
		if !errors.As(err, &exit) {
			errno = syscall.ENOEXEC
		}
		return &verbs.Error{Func: "nft", Errno: errno, Detail: fmt.Sprintf("%v: %s", err, strings.TrimSpace(out.String()))}
	}
	return nil
}

// local reports whether addr is one of this host's addresses. An address
// not known (rdma_cm's request id may not have it yet) is not refused.
func local(addr netip.Addr) bool {
	addr = addr.Unmap()
	if !addr.IsValid() {
		return false
	}
	if addr.IsLoopback() || addr.IsUnspecified() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap() == addr {
				return true
			}
		}
	}
	return false
}
