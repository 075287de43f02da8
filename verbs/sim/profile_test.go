package sim

import (
	"syscall"
	"testing"

	"github.com/rdmatour/rdmatour/verbs"
)

// The strict profile's differences from rxe, each where rxe hides a
// bug: a WRITE with the server's lkey as its rkey lands on rxe and is a
// remote access error on strict; the same WRITE with the rkey lands on
// both.
func TestStrictProfileKeys(t *testing.T) {
	for _, tt := range []struct {
		profile     Profile
		lkeyAsRKey  verbs.WCStatus
		keysAreSame bool
	}{
		{ProfileRxe, verbs.WCSuccess, true},
		{ProfileStrict, verbs.WCRemAccessErr, false},
	} {
		t.Run(tt.profile.String(), func(t *testing.T) {
			for _, useLKey := range []bool{false, true} {
				srv, cli := connectPair(t, pairCfg{opts: Options{Profile: tt.profile}})
				remote := srv.regMR(t, 4096, rwAccess)
				local := cli.regMR(t, 64, verbs.AccessLocalWrite)
				if (remote.LKey() == remote.RKey()) != tt.keysAreSame {
					t.Fatalf("lkey 0x%x rkey 0x%x: want the same = %v", remote.LKey(), remote.RKey(), tt.keysAreSame)
				}
				key, want := remote.RKey(), verbs.WCSuccess
				if useLKey {
					key, want = remote.LKey(), tt.lkeyAsRKey
				}
				must(t, cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, SGList: sge(local, 0, 8),
					Flags: verbs.SendSignaled, RemoteAddr: remote.Addr(), RKey: key}))
				wantStatus(t, pollN(t, cli.cq, 1)[0], 1, want)
			}
		})
	}
}

// Inline data: rxe grants 16 bytes to a QP that asked for none, so an
// 8-byte IBV_SEND_INLINE works; strict grants what was asked (0: the
// post is EINVAL) and refuses more than 64 at create time.
func TestStrictProfileInline(t *testing.T) {
	caps := verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}
	for _, tt := range []struct {
		profile Profile
		granted uint32
		post    error
	}{
		{ProfileRxe, 16, nil},
		{ProfileStrict, 0, syscall.EINVAL},
	} {
		t.Run(tt.profile.String(), func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{opts: Options{Profile: tt.profile}, caps: caps})
			remote := srv.regMR(t, 4096, rwAccess)
			local := cli.regMR(t, 64, verbs.AccessLocalWrite)
			a, err := cli.qp.Query()
			must(t, err)
			if a.Cap.MaxInlineData != tt.granted {
				t.Errorf("max_inline_data granted %d, want %d", a.Cap.MaxInlineData, tt.granted)
			}
			err = cli.qp.PostSend(verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, SGList: sge(local, 0, 8),
				Flags: verbs.SendSignaled | verbs.SendInline, RemoteAddr: remote.Addr(), RKey: remote.RKey()})
			if tt.post == nil {
				must(t, err)
				wantStatus(t, pollN(t, cli.cq, 1)[0], 1, verbs.WCSuccess)
			} else {
				wantErrno(t, err, "ibv_post_send", syscall.EINVAL)
			}
			big := caps
			big.MaxInlineData = 65
			extra, err := cli.id.Device().CreateQP(cli.pd, verbs.QPInitAttr{SendCQ: cli.cq, RecvCQ: cli.cq, Type: verbs.QPTRC, Cap: big})
			if tt.profile == ProfileStrict {
				wantErrno(t, err, "ibv_create_qp", syscall.EINVAL)
			} else {
				must(t, err)
				must(t, extra.Destroy())
			}
		})
	}
}

// max_qp_rd_atom, and the GID table: RoCE v1 at 0 beside RoCE v2 at 1,
// which rdma_cm's address vector uses.
func TestStrictProfileDevice(t *testing.T) {
	for _, tt := range []struct {
		profile Profile
		rdAtom  int
		gids    []string
		sgid    uint8
	}{
		{ProfileRxe, 128, []string{"RoCE v2", "RoCE v2"}, 1},
		{ProfileStrict, 4, []string{"RoCE v1", "RoCE v2"}, 1},
	} {
		t.Run(tt.profile.String(), func(t *testing.T) {
			srv, cli := connectPair(t, pairCfg{opts: Options{Profile: tt.profile}})
			info := cli.id.Device().Info()
			if info.MaxQPRdAtom != tt.rdAtom || info.MaxQPInitRdAtom != tt.rdAtom {
				t.Errorf("max_qp_rd_atom %d / init %d, want %d", info.MaxQPRdAtom, info.MaxQPInitRdAtom, tt.rdAtom)
			}
			var types []string
			for i, g := range info.Ports[0].GIDs {
				types = append(types, g.Type)
				if got, err := cli.id.Device().QueryGID(1, i); err != nil || got != g.GID {
					t.Errorf("ibv_query_gid(%d) = %v, %v; the table says %v", i, got, err, g.GID)
				}
			}
			if len(types) != len(tt.gids) || types[len(types)-1] != "RoCE v2" || types[0] != tt.gids[0] {
				t.Errorf("GID types %v, want %v", types, tt.gids)
			}
			attr, _, err := srv.id.InitQPAttr(verbs.QPSRTR)
			must(t, err)
			if attr.AH.SGIDIndex != tt.sgid {
				t.Errorf("rdma_init_qp_attr's sgid_index %d, want %d (the RoCE v2 entry)", attr.AH.SGIDIndex, tt.sgid)
			}
			p := verbs.ConnParam{ResponderResources: uint8(tt.rdAtom) + 1}
			if err := checkConnParam("rdma_connect", &p, cli.p.dev.limits().MaxQPRdAtom); err == nil {
				t.Errorf("responder_resources %d passed a device of %d", p.ResponderResources, tt.rdAtom)
			}
		})
	}
}

func TestParseProfile(t *testing.T) {
	for _, s := range []string{"rxe", "strict"} {
		if p, err := ParseProfile(s); err != nil || p.String() != s {
			t.Errorf("%q: %v %v", s, p, err)
		}
	}
	if _, err := ParseProfile("mlx5"); err == nil {
		t.Error("mlx5 parsed")
	}
}
