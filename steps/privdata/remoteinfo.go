package privdata

import (
	"encoding/binary"
	"fmt"
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
