//go:build linux && cgo

// The data path: posting work requests and polling completions, the calls
// a busy loop makes per WRITE (kept apart from the setup calls in shim.c).

#include "shim.h"

#include <arpa/inet.h>

int rt_post_send(struct ibv_qp *qp, uint64_t wr_id, int opcode, unsigned int flags,
		 struct ibv_sge *sges, int num_sge, uint64_t remote_addr, uint32_t rkey,
		 uint32_t imm_host, uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr wr, *bad = NULL;

	rt_send_wr_init(&wr, wr_id, opcode, flags, sges, num_sge);
	if (wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		/* wr.atomic overlays wr.rdma with rkey moved after the operands. */
		wr.wr.atomic.remote_addr = remote_addr;
		wr.wr.atomic.compare_add = compare_add;
		wr.wr.atomic.swap = swap;
		wr.wr.atomic.rkey = rkey;
	} else {
		wr.wr.rdma.remote_addr = remote_addr;
		wr.wr.rdma.rkey = rkey;
	}
	wr.imm_data = htonl(imm_host);
	return ibv_post_send(qp, &wr, &bad);
}

int rt_post_send1(struct ibv_qp *qp, uint64_t wr_id, int opcode, unsigned int flags,
		  uint64_t sge_addr, uint32_t sge_length, uint32_t sge_lkey,
		  uint64_t remote_addr, uint32_t rkey, uint32_t imm_host,
		  uint64_t compare_add, uint64_t swap)
{
	struct ibv_sge sge = { .addr = sge_addr, .length = sge_length, .lkey = sge_lkey };

	return rt_post_send(qp, wr_id, opcode, flags, &sge, 1, remote_addr, rkey, imm_host,
			    compare_add, swap);
}

int rt_post_recv(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sges, int num_sge)
{
	struct ibv_recv_wr wr, *bad = NULL;

	rt_recv_wr_init(&wr, wr_id, sges, num_sge);
	return ibv_post_recv(qp, &wr, &bad);
}

int rt_poll_cq(struct ibv_cq *cq, int n, struct rt_wc *out)
{
	struct ibv_wc wc[16];
	int total = 0;

	while (total < n) {
		int want = n - total > 16 ? 16 : n - total;
		int got = ibv_poll_cq(cq, want, wc);

		if (got < 0)
			return total ? total : (got == -1 ? -EIO : got);
		for (int i = 0; i < got; i++) {
			struct rt_wc *o = &out[total + i];
			o->wr_id = wc[i].wr_id;
			o->status = wc[i].status;
			o->opcode = wc[i].opcode;
			o->vendor_err = wc[i].vendor_err;
			o->byte_len = wc[i].byte_len;
			o->has_imm = (wc[i].wc_flags & IBV_WC_WITH_IMM) != 0;
			o->imm_host = o->has_imm ? ntohl(wc[i].imm_data) : 0;
			o->qp_num = wc[i].qp_num;
			o->src_qp = wc[i].src_qp;
			o->has_grh = (wc[i].wc_flags & IBV_WC_GRH) != 0;
		}
		total += got;
		if (got < want)
			break;
	}
	return total;
}
