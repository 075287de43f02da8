//go:build linux && cgo

package rdmacore

import "github.com/rdmatour/rdmatour/verbs"

// The MR's fields, as ibv_reg_mr returned them.
func (m *memRegion) Addr() uint64         { return m.addr }
func (m *memRegion) Len() int             { return m.length }
func (m *memRegion) LKey() uint32         { return m.lkey }
func (m *memRegion) RKey() uint32         { return m.rkey }
func (m *memRegion) Access() verbs.Access { return m.access }
