package steps

import (
	"encoding/binary"
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
)

// RemoteInfoSize is sizeof(struct remote_info) in the seed: packed, 32 bytes.
const RemoteInfoSize = 32

// RemoteInfo is the seed's struct remote_info: what the server hands the
// client in the accept private data so the client can RDMA WRITE into it.
// On the wire every field is big-endian.
type RemoteInfo struct {
	Addr         uint64
	RKey         uint32
	Size         uint32
	DoorbellAddr uint64
	DoorbellRKey uint32
	DoorbellSize uint32
}

// Marshal encodes the 32-byte packed big-endian form.
func (r RemoteInfo) Marshal() []byte {
	b := make([]byte, RemoteInfoSize)
	binary.BigEndian.PutUint64(b[0:], r.Addr)
	binary.BigEndian.PutUint32(b[8:], r.RKey)
	binary.BigEndian.PutUint32(b[12:], r.Size)
	binary.BigEndian.PutUint64(b[16:], r.DoorbellAddr)
	binary.BigEndian.PutUint32(b[24:], r.DoorbellRKey)
	binary.BigEndian.PutUint32(b[28:], r.DoorbellSize)
	return b
}

// ParseRemoteInfo decodes private data. Over IB/RoCE it arrives padded to
// 196 bytes; only the first 32 matter. Shorter data is the seed's
// "server private_data missing or too small".
func ParseRemoteInfo(p []byte) (RemoteInfo, error) {
	if len(p) < RemoteInfoSize {
		return RemoteInfo{}, fmt.Errorf("server private_data missing or too small: %d bytes, need %d", len(p), RemoteInfoSize)
	}
	return RemoteInfo{
		Addr:         binary.BigEndian.Uint64(p[0:]),
		RKey:         binary.BigEndian.Uint32(p[8:]),
		Size:         binary.BigEndian.Uint32(p[12:]),
		DoorbellAddr: binary.BigEndian.Uint64(p[16:]),
		DoorbellRKey: binary.BigEndian.Uint32(p[24:]),
		DoorbellSize: binary.BigEndian.Uint32(p[28:]),
	}, nil
}

// localRemoteInfo is what the server hands out: its data buffer and its
// doorbell flag (the first 8 bytes of the doorbell buffer).
// In an atomic workshop room the data buffer is the room's shared
// counter (8 bytes) instead.
func (s *Session) localRemoteInfo() RemoteInfo {
	info := RemoteInfo{
		Addr: s.mrData.Addr(), RKey: s.mrData.RKey(), Size: BufSize,
		DoorbellAddr: s.mrDoor.Addr(), DoorbellRKey: s.mrDoor.RKey(), DoorbellSize: 8,
	}
	if s.sharedCounter != nil {
		info.Addr, info.RKey, info.Size = s.sharedCounter.Addr(), s.sharedCounter.RKey(), uint32(s.sharedCounter.Len())
	}
	return info
}

// counterMR is the MR that holds this server's counter in the atomic
// tour: the room's shared one in a workshop, its own buffer otherwise.
func (s *Session) counterMR() verbs.MR {
	if s.sharedCounter != nil {
		return s.sharedCounter
	}
	return s.mrData
}
