//go:build linux && cgo

package rdmacore

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/rdmatour/rdmatour/verbs"
)

// device is an ibv_context. Contexts come from librdmacm (id->verbs), which
// keeps them open for the life of the process; one Go device per context.
type device struct {
	p    *Provider
	ctx  *C.struct_ibv_context
	name string
	// async counts the SRQ limit events read off the context's async_fd
	// (srq_linux.go).
	async asyncEvents
}

var _ verbs.Device = (*device)(nil)

func (p *Provider) deviceFor(ctx *C.struct_ibv_context) *device {
	if ctx == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.devs[ctx]; ok {
		return d
	}
	dev := C.rt_ctx_device(ctx)
	d := &device{p: p, ctx: ctx, name: C.GoString(C.rt_get_device_name(p.rt, dev))}
	p.devs[ctx] = d
	return d
}

// Devices is ibv_get_device_list + ibv_open_device + ibv_query_device/port
// for every device. No RDMA in the kernel means an empty list, not an error.
func (p *Provider) Devices() ([]verbs.DeviceInfo, error) {
	var n C.int
	list, err := C.rt_get_device_list(p.rt, &n)
	if list == nil {
		switch errnoOf(err) {
		case 0, syscall.ENOSYS, syscall.ENODEV, syscall.ENOENT:
			return nil, nil
		}
		return nil, cErr("ibv_get_device_list", err, "")
	}
	defer C.rt_free_device_list(p.rt, list)
	devs := unsafe.Slice(list, int(n))
	var out []verbs.DeviceInfo
	for _, dev := range devs {
		name := C.GoString(C.rt_get_device_name(p.rt, dev))
		ctx, err := C.rt_open_device(p.rt, dev)
		if ctx == nil {
			return out, cErr("ibv_open_device", err, name)
		}
		info, ierr := p.deviceInfo(ctx, name)
		C.rt_close_device(p.rt, ctx)
		if ierr != nil {
			return out, ierr
		}
		out = append(out, info)
	}
	return out, nil
}

func (p *Provider) deviceInfo(ctx *C.struct_ibv_context, name string) (verbs.DeviceInfo, error) {
	dev := C.rt_ctx_device(ctx)
	info := verbs.DeviceInfo{Name: name}
	switch C.rt_device_transport(dev) {
	case C.IBV_TRANSPORT_IB:
		info.Transport = "InfiniBand"
	case C.IBV_TRANSPORT_IWARP:
		info.Transport = verbs.TransportIWARP
	case C.IBV_TRANSPORT_USNIC, C.IBV_TRANSPORT_USNIC_UDP:
		info.Transport = "usNIC"
	case C.IBV_TRANSPORT_UNSPECIFIED:
		info.Transport = "unspecified"
	default:
		info.Transport = "unknown"
	}
	guid := uint64(C.rt_get_device_guid(p.rt, dev))
	info.NodeGUID = fmt.Sprintf("%04x:%04x:%04x:%04x", guid>>48, (guid>>32)&0xffff, (guid>>16)&0xffff, guid&0xffff)

	var da C.struct_ibv_device_attr
	if rc := C.rt_query_device(p.rt, ctx, &da); rc != 0 {
		return info, rcErr("ibv_query_device", rc, name)
	}
	info.MaxQPRdAtom, info.MaxQPInitRdAtom = int(da.max_qp_rd_atom), int(da.max_qp_init_rd_atom)
	info.AtomicCap = verbs.AtomicCap(da.atomic_cap)
	gids := p.gidTable(ctx)
	netdevs := map[string]bool{}
	for port := 1; port <= int(da.phys_port_cnt); port++ {
		pa, err := p.portAttr(ctx, name, uint8(port), gids)
		if err != nil {
			return info, err
		}
		info.Ports = append(info.Ports, pa)
		for _, g := range pa.GIDs {
			if nd := readSysfs(filepath.Join(p.sysfs, name, "ports", strconv.Itoa(port), "gid_attrs", "ndevs", strconv.Itoa(g.Index))); nd != "" {
				netdevs[nd] = true
			}
		}
	}
	if ents, err := os.ReadDir(filepath.Join(p.sysfs, name, "device", "net")); err == nil {
		for _, e := range ents {
			netdevs[e.Name()] = true
		}
	}
	if len(netdevs) == 0 && info.IsIWARP() && len(info.Ports) > 0 && len(info.Ports[0].GIDs) > 0 {
		if nd := netdevByMAC(filepath.Join(filepath.Dir(p.sysfs), "net"), info.Ports[0].GIDs[0].GID); nd != "" {
			netdevs[nd] = true
		}
	}
	for nd := range netdevs {
		info.Netdevs = append(info.Netdevs, nd)
	}
	sort.Strings(info.Netdevs)
	return info, nil
}

type gidRow struct {
	port, index int
	gid         netip.Addr
	typ         int
}

// gidTable is _ibv_query_gid_table when libibverbs has it (1.11+): only the
// populated entries, in one call. nil means "scan with ibv_query_gid".
func (p *Provider) gidTable(ctx *C.struct_ibv_context) []gidRow {
	if C.rt_has_gid_table(p.rt) == 0 {
		return nil
	}
	const max = 4096
	ents := (*[max]C.struct_ibv_gid_entry)(C.calloc(max, C.size_t(unsafe.Sizeof(C.struct_ibv_gid_entry{}))))
	if ents == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(ents))
	n := C.rt_query_gid_table(p.rt, ctx, &ents[0], max)
	if n < 0 {
		return nil
	}
	rows := make([]gidRow, 0, int(n))
	for i := 0; i < int(n); i++ {
		e := &ents[i]
		raw := *(*[16]byte)(unsafe.Pointer(&e.gid))
		rows = append(rows, gidRow{port: int(C.rt_gid_entry_port(e)), index: int(e.gid_index),
			gid: netip.AddrFrom16(raw), typ: int(e.gid_type)})
	}
	return rows
}

var mtuBytes = map[C.enum_ibv_mtu]int{C.IBV_MTU_256: 256, C.IBV_MTU_512: 512, C.IBV_MTU_1024: 1024, C.IBV_MTU_2048: 2048, C.IBV_MTU_4096: 4096}

func mtuToBytes(m C.enum_ibv_mtu) int { return mtuBytes[m] }

func (p *Provider) portAttr(ctx *C.struct_ibv_context, name string, port uint8, table []gidRow) (verbs.PortAttr, error) {
	var a C.struct_ibv_port_attr
	if rc := C.rt_query_port(p.rt, ctx, C.uint8_t(port), &a); rc != 0 {
		return verbs.PortAttr{}, rcErr("ibv_query_port", rc, fmt.Sprintf("%s port %d", name, port))
	}
	pa := verbs.PortAttr{
		Num:         port,
		State:       verbs.PortState(a.state),
		ActiveMTU:   mtuToBytes(a.active_mtu),
		MaxMTU:      mtuToBytes(a.max_mtu),
		MaxMsgSize:  uint32(a.max_msg_sz),
		ActiveSpeed: speedString(int(a.active_width), int(a.active_speed)),
	}
	switch a.link_layer {
	case C.IBV_LINK_LAYER_ETHERNET:
		pa.LinkLayer = "Ethernet"
	case C.IBV_LINK_LAYER_INFINIBAND, C.IBV_LINK_LAYER_UNSPECIFIED:
		pa.LinkLayer = "InfiniBand"
	default:
		pa.LinkLayer = "unknown"
	}
	typeName := func(index, tableType int) string {
		sysfs := readSysfs(filepath.Join(p.sysfs, name, "ports", strconv.Itoa(int(port)), "gid_attrs", "types", strconv.Itoa(index)))
		return gidTypeName(sysfs, tableType, pa.LinkLayer == "Ethernet")
	}
	if table != nil {
		for _, r := range table {
			if r.port == int(port) {
				pa.GIDs = append(pa.GIDs, verbs.GIDEntry{Index: r.index, GID: r.gid, Type: typeName(r.index, r.typ)})
			}
		}
		sort.Slice(pa.GIDs, func(i, j int) bool { return pa.GIDs[i].Index < pa.GIDs[j].Index })
		return pa, nil
	}
	for i := 0; i < int(a.gid_tbl_len); i++ {
		var raw [16]byte
		if rc := C.rt_query_gid(p.rt, ctx, C.uint8_t(port), C.int(i), (*C.uint8_t)(unsafe.Pointer(&raw[0]))); rc != 0 {
			continue
		}
		if raw == ([16]byte{}) {
			continue
		}
		pa.GIDs = append(pa.GIDs, verbs.GIDEntry{Index: i, GID: netip.AddrFrom16(raw), Type: typeName(i, -1)})
	}
	return pa, nil
}

// gidTypeName names a GID's type: from sysfs when it says, otherwise from
// ibv_query_gid_table's type (-1: none). "IB/RoCE v1" is RoCE v1 on an
// Ethernet port, IB on an InfiniBand one.
func gidTypeName(sysfs string, tableType int, ethernet bool) string {
	switch {
	case sysfs == "RoCE v2":
		return "RoCE v2"
	case sysfs == "IB/RoCE v1" && ethernet:
		return "RoCE v1"
	case sysfs == "IB/RoCE v1":
		return "IB"
	case sysfs != "":
		return sysfs
	}
	switch tableType {
	case C.IBV_GID_TYPE_ROCE_V2:
		return "RoCE v2"
	case C.IBV_GID_TYPE_ROCE_V1:
		return "RoCE v1"
	case C.IBV_GID_TYPE_IB:
		if ethernet {
			return "RoCE v1"
		}
		return "IB"
	}
	return ""
}

func speedString(width, speed int) string {
	w := map[int]string{1: "1X", 2: "4X", 4: "8X", 8: "12X", 16: "2X"}[width]
	s := map[int]string{1: "2.5 Gbps", 2: "5.0 Gbps", 4: "10.0 Gbps", 8: "10.0 Gbps", 16: "14.0 Gbps",
		32: "25.0 Gbps", 64: "50.0 Gbps", 128: "100.0 Gbps", 0: "", 255: ""}[speed]
	if s == "" {
		s = fmt.Sprintf("speed %d", speed)
	}
	if w == "" {
		return s
	}
	return w + " " + s
}

func readSysfs(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Info describes the device and its ports now (state and GIDs can change).
func (d *device) Info() verbs.DeviceInfo {
	info, err := d.p.deviceInfo(d.ctx, d.name)
	if err != nil && info.Name == "" {
		info.Name = d.name
	}
	return info
}

// AllocPD is ibv_alloc_pd.
func (d *device) AllocPD() (verbs.PD, error) {
	pd, err := C.rt_alloc_pd(d.p.rt, d.ctx)
	if pd == nil {
		return nil, cErr("ibv_alloc_pd", err, d.name)
	}
	d.p.count(func(c *verbs.ResourceCount) { c.PDs++ })
	return &protDomain{p: d.p, dev: d, pd: pd}, nil
}

// CreateCQ is ibv_create_cq(ctx, cqe, NULL, NULL, 0).
func (d *device) CreateCQ(cqe int) (verbs.CQ, error) {
	if cqe <= 0 || cqe > 1<<24 {
		return nil, verbs.Errorf("ibv_create_cq", syscall.EINVAL, "cqe %d", cqe)
	}
	cq, err := C.rt_create_cq(d.p.rt, d.ctx, C.int(cqe))
	if cq == nil {
		return nil, cErr("ibv_create_cq", err, fmt.Sprintf("cqe %d", cqe))
	}
	d.p.count(func(c *verbs.ResourceCount) { c.CQs++ })
	return &compQueue{p: d.p, cq: cq, cqe: int(cq.cqe)}, nil
}

// QueryPort is ibv_query_port plus the port's populated GIDs.
func (d *device) QueryPort(port uint8) (verbs.PortAttr, error) {
	return d.p.portAttr(d.ctx, d.name, port, d.p.gidTable(d.ctx))
}

// QueryGID is ibv_query_gid.
func (d *device) QueryGID(port uint8, index int) (netip.Addr, error) {
	var raw [16]byte
	if rc, err := C.rt_query_gid(d.p.rt, d.ctx, C.uint8_t(port), C.int(index), (*C.uint8_t)(unsafe.Pointer(&raw[0]))); rc != 0 {
		return netip.Addr{}, cErr("ibv_query_gid", err, fmt.Sprintf("port %d index %d", port, index))
	}
	return netip.AddrFrom16(raw), nil
}

// Counters reads /sys/class/infiniband/<dev>/ports/<port>/hw_counters/* (rxe
// has these) and counters/* (IB PMA counters on real HCAs).
func (d *device) Counters(port uint8) (map[string]uint64, error) {
	return readCounters(filepath.Join(d.p.sysfs, d.name, "ports", strconv.Itoa(int(port))))
}

func readCounters(portDir string) (map[string]uint64, error) {
	out := map[string]uint64{}
	for _, sub := range []string{"hw_counters", "counters"} {
		ents, err := os.ReadDir(filepath.Join(portDir, sub))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			s := readSysfs(filepath.Join(portDir, sub, e.Name()))
			if v, err := strconv.ParseUint(s, 10, 64); err == nil {
				if _, dup := out[e.Name()]; !dup {
					out[e.Name()] = v
				}
			}
		}
	}
	return out, nil
}
