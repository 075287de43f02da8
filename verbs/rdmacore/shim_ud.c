//go:build linux && cgo

/* The shim's unreliable-datagram part: address handles, SEND with wr.ud,
 * and event->param.ud. */

#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>

/* ibv_create_ah and ibv_destroy_ah are looked up when used: a program
 * makes a handful of address handles, and struct rt stays as it is. */
static void *verbs_sym(struct rt *rt, const char *name)
{
	return dlsym(rt->verbs_handle, name);
}

static void ah_from_flat(struct ibv_ah_attr *a, const struct rt_ah_attr *in)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->grh.dgid.raw, in->dgid, 16);
	a->grh.flow_label = in->flow_label;
	a->grh.sgid_index = in->sgid_index;
	a->grh.hop_limit = in->hop_limit;
	a->grh.traffic_class = in->traffic_class;
	a->dlid = in->dlid;
	a->sl = in->sl;
	a->src_path_bits = in->src_path_bits;
	a->static_rate = in->static_rate;
	a->is_global = in->is_global;
	a->port_num = in->port_num;
}

static void ah_to_flat(struct rt_ah_attr *o, const struct ibv_ah_attr *a)
{
	memcpy(o->dgid, a->grh.dgid.raw, 16);
	o->flow_label = a->grh.flow_label;
	o->sgid_index = a->grh.sgid_index;
	o->hop_limit = a->grh.hop_limit;
	o->traffic_class = a->grh.traffic_class;
	o->dlid = a->dlid;
	o->sl = a->sl;
	o->src_path_bits = a->src_path_bits;
	o->static_rate = a->static_rate;
	o->is_global = a->is_global;
	o->port_num = a->port_num;
}

struct ibv_ah *rt_create_ah(struct rt *rt, struct ibv_pd *pd, const struct rt_ah_attr *in, int *err)
{
	struct ibv_ah *(*create)(struct ibv_pd *, struct ibv_ah_attr *) =
		(struct ibv_ah * (*)(struct ibv_pd *, struct ibv_ah_attr *)) verbs_sym(rt, "ibv_create_ah");
	struct ibv_ah_attr a;
	struct ibv_ah *ah;

	if (!create) {
		*err = ENOSYS;
		return NULL;
	}
	ah_from_flat(&a, in);
	errno = 0;
	ah = create(pd, &a);
	*err = ah ? 0 : (errno ? errno : EINVAL);
	return ah;
}

int rt_destroy_ah(struct rt *rt, struct ibv_ah *ah)
{
	int (*destroy)(struct ibv_ah *) = (int (*)(struct ibv_ah *))verbs_sym(rt, "ibv_destroy_ah");

	if (!destroy)
		return ENOSYS;
	return destroy(ah);
}

/* libibverbs only reads the GRH through a pointer: the shim need not
 * know its layout (abi.h does not declare it). */
struct ibv_grh;

/* ibv_create_ah_from_wc is ibv_init_ah_from_wc and ibv_create_ah; the
 * shim makes the same two calls so that it can report the address vector
 * the handle was made from. The completion is rebuilt from what the poll
 * kept: over RoCE only wc_flags (the GRH) counts, slid, sl and
 * dlid_path_bits are 0. */
struct ibv_ah *rt_create_ah_from_wc(struct rt *rt, struct ibv_pd *pd, int has_grh, uint32_t src_qp, uint32_t qp_num,
				    const void *grh, uint8_t port_num, struct rt_ah_attr *out, int *err)
{
	int (*init)(struct ibv_context *, uint8_t, struct ibv_wc *, struct ibv_grh *, struct ibv_ah_attr *) =
		(int (*)(struct ibv_context *, uint8_t, struct ibv_wc *, struct ibv_grh *, struct ibv_ah_attr *))
			verbs_sym(rt, "ibv_init_ah_from_wc");
	struct ibv_ah *(*create)(struct ibv_pd *, struct ibv_ah_attr *) =
		(struct ibv_ah * (*)(struct ibv_pd *, struct ibv_ah_attr *)) verbs_sym(rt, "ibv_create_ah");
	uint64_t g[5]; /* the 40-byte GRH, aligned */
	struct ibv_wc wc;
	struct ibv_ah_attr a;
	struct ibv_ah *ah;

	if (!init || !create) {
		*err = ENOSYS;
		return NULL;
	}
	memcpy(g, grh, sizeof(g));
	memset(&wc, 0, sizeof(wc));
	wc.status = IBV_WC_SUCCESS;
	wc.opcode = IBV_WC_RECV;
	wc.src_qp = src_qp;
	wc.qp_num = qp_num;
	wc.wc_flags = has_grh ? IBV_WC_GRH : 0;
	errno = 0;
	if (init(pd->context, port_num, &wc, (struct ibv_grh *)g, &a)) {
		*err = errno ? errno : EINVAL;
		return NULL;
	}
	ah_to_flat(out, &a);
	errno = 0;
	ah = create(pd, &a);
	*err = ah ? 0 : (errno ? errno : EINVAL);
	return ah;
}

int rt_post_send_ud(struct ibv_qp *qp, uint64_t wr_id, int opcode, unsigned int flags,
		    struct ibv_sge *sges, int num_sge, struct ibv_ah *ah, uint32_t remote_qpn,
		    uint32_t remote_qkey, uint32_t imm_host)
{
	struct ibv_send_wr wr, *bad = NULL;

	rt_send_wr_init(&wr, wr_id, opcode, flags, sges, num_sge);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = remote_qpn;
	wr.wr.ud.remote_qkey = remote_qkey;
	wr.imm_data = htonl(imm_host);
	return ibv_post_send(qp, &wr, &bad);
}

void rt_copy_ud(const struct rdma_cm_event *ev, struct rt_event *out)
{
	if (!ev->id || ev->id->ps != RDMA_PS_UDP || !out->has_conn)
		return;
	/* param is a union: what rt_get_event read as conn's responder
	 * resources and so on are bytes of ud.ah_attr. */
	out->responder_resources = out->initiator_depth = out->rnr_retry_count = 0;
	out->qp_num = 0;
	out->is_ud = 1;
	out->ud_qp_num = ev->param.ud.qp_num;
	out->ud_qkey = ev->param.ud.qkey;
	ah_to_flat(&out->ud_ah, &ev->param.ud.ah_attr);
}
