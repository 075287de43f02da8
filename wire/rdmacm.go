package wire

import (
	"encoding/binary"
	"net/netip"
)

// What rdma_cm puts in the IB CM's fields on RoCE (the kernel's cma.c and
// IBA Annex A11, "IP addressing").
const (
	// ipCMHeaderLen is rdma_cm's header at the start of a REQ's private
	// data; the application gets the remaining 92 - 36 = 56 bytes.
	ipCMHeaderLen = 36
	// PSTCPServicePrefix is RDMA_PS_TCP's service ID prefix; the low 16
	// bits are the destination port.
	PSTCPServicePrefix = 0x0000000001060000
	// MaxConnectPrivateData is what rdma_connect may carry.
	MaxConnectPrivateData = REQPrivateLen - ipCMHeaderLen
)

// ServiceIDForPort is the service ID rdma_cm connects to for RDMA_PS_TCP
// on a port.
func ServiceIDForPort(port uint16) uint64 { return PSTCPServicePrefix | uint64(port) }

// GIDFromAddr is a RoCEv2 GID for an IPv4 address: ::ffff:a.b.c.d.
func GIDFromAddr(a netip.Addr) GID { return GID(netip.AddrFrom16(a.As16()).As16()) }

// REQPrivateData builds a REQ's private data as rdma_cm does: its IP CM
// header (version 0, IPv4, the source port, both addresses) followed by
// the application's private data (at most 56 bytes; more is cut).
func REQPrivateData(src netip.AddrPort, dst netip.Addr, user []byte) [REQPrivateLen]byte {
	var d [REQPrivateLen]byte
	d[0] = 0x00   // CMA_VERSION
	d[1] = 4 << 4 // IP version in the top four bits
	binary.BigEndian.PutUint16(d[2:], src.Port())
	s, t := src.Addr().As4(), dst.As4()
	copy(d[16:20], s[:]) // IPv4 sits in the last four bytes of each 16
	copy(d[32:36], t[:])
	copy(d[ipCMHeaderLen:], user)
	return d
}

// IPCM is rdma_cm's header in a REQ's private data, decoded.
type IPCM struct {
	Version   uint8
	IPVersion uint8
	SrcPort   uint16
	Src, Dst  netip.Addr
	// User is the application's private data after the header.
	User []byte
}

// DecodeIPCM reads rdma_cm's header from a REQ's private data.
func DecodeIPCM(priv [REQPrivateLen]byte) IPCM {
	h := IPCM{Version: priv[0], IPVersion: priv[1] >> 4, SrcPort: binary.BigEndian.Uint16(priv[2:]),
		User: append([]byte(nil), priv[ipCMHeaderLen:]...)}
	if h.IPVersion == 4 {
		h.Src = netip.AddrFrom4([4]byte(priv[16:20]))
		h.Dst = netip.AddrFrom4([4]byte(priv[32:36]))
	} else {
		h.Src = netip.AddrFrom16([16]byte(priv[4:20]))
		h.Dst = netip.AddrFrom16([16]byte(priv[20:36]))
	}
	return h
}
