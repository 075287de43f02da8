//go:build linux && cgo

#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#define LOAD(h, field, name, required)                                         \
	do {                                                                   \
		*(void **)(&rt->field) = dlsym(h, name);                       \
		if (!rt->field && required) {                                  \
			snprintf(err, errlen, "%s: symbol %s not found", libname, name); \
			*which = 3;                                            \
			goto fail;                                             \
		}                                                              \
	} while (0)

struct rt *rt_open(const char *verbs_lib, const char *cm_lib, char *err, size_t errlen,
		   int *which)
{
	struct rt *rt = calloc(1, sizeof(*rt));
	const char *libname;
	const char *e;

	if (!rt) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	libname = verbs_lib;
	*which = 1;
	rt->verbs_handle = dlopen(verbs_lib, RTLD_NOW | RTLD_GLOBAL);
	if (!rt->verbs_handle) {
		e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen failed");
		goto fail;
	}
	LOAD(rt->verbs_handle, get_device_list, "ibv_get_device_list", 1);
	LOAD(rt->verbs_handle, free_device_list, "ibv_free_device_list", 1);
	LOAD(rt->verbs_handle, get_device_name, "ibv_get_device_name", 1);
	LOAD(rt->verbs_handle, get_device_guid, "ibv_get_device_guid", 1);
	LOAD(rt->verbs_handle, open_device, "ibv_open_device", 1);
	LOAD(rt->verbs_handle, close_device, "ibv_close_device", 1);
	LOAD(rt->verbs_handle, query_device, "ibv_query_device", 1);
	LOAD(rt->verbs_handle, query_port, "ibv_query_port", 1);
	LOAD(rt->verbs_handle, query_gid, "ibv_query_gid", 1);
	LOAD(rt->verbs_handle, query_gid_table, "_ibv_query_gid_table", 0);
	LOAD(rt->verbs_handle, alloc_pd, "ibv_alloc_pd", 1);
	LOAD(rt->verbs_handle, dealloc_pd, "ibv_dealloc_pd", 1);
	LOAD(rt->verbs_handle, create_cq, "ibv_create_cq", 1);
	LOAD(rt->verbs_handle, destroy_cq, "ibv_destroy_cq", 1);
	/* ibv_reg_mr is a macro around __ibv_reg_mr in verbs.h; the exported
	 * function ibv_reg_mr is what it calls for plain access flags. */
	LOAD(rt->verbs_handle, reg_mr, "ibv_reg_mr", 1);
	LOAD(rt->verbs_handle, dereg_mr, "ibv_dereg_mr", 1);
	LOAD(rt->verbs_handle, query_qp, "ibv_query_qp", 1);
	LOAD(rt->verbs_handle, wc_status_str, "ibv_wc_status_str", 1);
	LOAD(rt->verbs_handle, ibv_create_qp, "ibv_create_qp", 1);
	LOAD(rt->verbs_handle, ibv_modify_qp, "ibv_modify_qp", 1);
	LOAD(rt->verbs_handle, ibv_destroy_qp, "ibv_destroy_qp", 1);
	LOAD(rt->verbs_handle, create_srq, "ibv_create_srq", 0);
	LOAD(rt->verbs_handle, modify_srq, "ibv_modify_srq", 0);
	LOAD(rt->verbs_handle, query_srq, "ibv_query_srq", 0);
	LOAD(rt->verbs_handle, destroy_srq, "ibv_destroy_srq", 0);
	LOAD(rt->verbs_handle, get_async_event, "ibv_get_async_event", 0);
	LOAD(rt->verbs_handle, ack_async_event, "ibv_ack_async_event", 0);
	LOAD(rt->verbs_handle, create_comp_channel, "ibv_create_comp_channel", 1);
	LOAD(rt->verbs_handle, destroy_comp_channel, "ibv_destroy_comp_channel", 1);
	LOAD(rt->verbs_handle, get_cq_event, "ibv_get_cq_event", 1);
	LOAD(rt->verbs_handle, ack_cq_events, "ibv_ack_cq_events", 1);

	libname = cm_lib;
	*which = 2;
	rt->cm_handle = dlopen(cm_lib, RTLD_NOW | RTLD_GLOBAL);
	if (!rt->cm_handle) {
		e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen failed");
		goto fail;
	}
	LOAD(rt->cm_handle, create_event_channel, "rdma_create_event_channel", 1);
	LOAD(rt->cm_handle, destroy_event_channel, "rdma_destroy_event_channel", 1);
	LOAD(rt->cm_handle, create_id, "rdma_create_id", 1);
	LOAD(rt->cm_handle, destroy_id, "rdma_destroy_id", 1);
	LOAD(rt->cm_handle, bind_addr, "rdma_bind_addr", 1);
	LOAD(rt->cm_handle, listen, "rdma_listen", 1);
	LOAD(rt->cm_handle, resolve_addr, "rdma_resolve_addr", 1);
	LOAD(rt->cm_handle, resolve_route, "rdma_resolve_route", 1);
	LOAD(rt->cm_handle, connect, "rdma_connect", 1);
	LOAD(rt->cm_handle, accept, "rdma_accept", 1);
	LOAD(rt->cm_handle, reject, "rdma_reject", 1);
	LOAD(rt->cm_handle, disconnect, "rdma_disconnect", 1);
	LOAD(rt->cm_handle, create_qp, "rdma_create_qp", 1);
	LOAD(rt->cm_handle, destroy_qp, "rdma_destroy_qp", 1);
	LOAD(rt->cm_handle, get_cm_event, "rdma_get_cm_event", 1);
	LOAD(rt->cm_handle, ack_cm_event, "rdma_ack_cm_event", 1);
	LOAD(rt->cm_handle, event_str, "rdma_event_str", 1);
	LOAD(rt->cm_handle, init_qp_attr, "rdma_init_qp_attr", 1);
	LOAD(rt->cm_handle, establish, "rdma_establish", 0);
	*which = 0;
	return rt;

fail:
	rt_close(rt);
	return NULL;
}

void rt_close(struct rt *rt)
{
	/* Only for a half-loaded table: once a provider is open, librdmacm
	 * holds device contexts for the life of the process, so the
	 * libraries stay loaded (dlopen is reference counted). */
	if (!rt)
		return;
	if (rt->cm_handle)
		dlclose(rt->cm_handle);
	if (rt->verbs_handle)
		dlclose(rt->verbs_handle);
	free(rt);
}

int rt_wait_fd(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n > 0;
}

int rt_set_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

int rt_get_event(struct rt *rt, struct rdma_event_channel *ch, struct rt_event *out)
{
	struct rdma_cm_event *ev = NULL;

	memset(out, 0, sizeof(*out));
	if (rt->get_cm_event(ch, &ev))
		return errno ? -errno : -EIO;
	out->id = ev->id;
	out->listen_id = ev->listen_id;
	out->type = ev->event;
	out->status = ev->status;
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
	case RDMA_CM_EVENT_ESTABLISHED:
	case RDMA_CM_EVENT_REJECTED:
		out->has_conn = 1;
		if (ev->param.conn.private_data && ev->param.conn.private_data_len) {
			out->private_data_len = ev->param.conn.private_data_len;
			memcpy(out->private_data, ev->param.conn.private_data,
			       out->private_data_len);
		}
		out->responder_resources = ev->param.conn.responder_resources;
		out->initiator_depth = ev->param.conn.initiator_depth;
		out->rnr_retry_count = ev->param.conn.rnr_retry_count;
		out->qp_num = ev->param.conn.qp_num;
		break;
	default:
		break;
	}
	rt_copy_ud(ev, out);
	rt->ack_cm_event(ev);
	return 0;
}

void rt_make_sa(struct sockaddr_storage *ss, int family, const uint8_t *ip, uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, ip, 16);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, ip, 4);
	}
}

int rt_read_sa(const struct sockaddr *sa, uint8_t *ip, uint16_t *port)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		memcpy(ip, &s4->sin_addr, 4);
		*port = ntohs(s4->sin_port);
		return AF_INET;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		memcpy(ip, &s6->sin6_addr, 16);
		*port = ntohs(s6->sin6_port);
		return AF_INET6;
	}
	return 0;
}

struct sockaddr *rt_local_addr(struct rdma_cm_id *id)
{
	return &id->route.addr.src_addr;
}

struct sockaddr *rt_peer_addr(struct rdma_cm_id *id)
{
	return &id->route.addr.dst_addr;
}

/* What the ibv_query_port macro expands to, calling the exported
 * ibv_query_port through the table only in the fallback. */
int rt_query_port(struct rt *rt, struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_port);

	memset(attr, 0, sizeof(*attr));
	if (!vctx)
		return rt->query_port(ctx, port, (struct _compat_ibv_port_attr *)attr);
	return vctx->query_port(ctx, port, attr, sizeof(*attr));
}

int rt_query_qp(struct rt *rt, struct ibv_qp *qp, struct ibv_qp_attr *attr,
		struct ibv_qp_init_attr *init)
{
	int mask = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		   IBV_QP_SQ_PSN | IBV_QP_ACCESS_FLAGS | IBV_QP_MAX_QP_RD_ATOMIC |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT |
		   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_PORT | IBV_QP_CAP;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	return rt->query_qp(qp, attr, mask, init);
}

void *rt_alloc(size_t len)
{
	void *p = NULL;
	size_t page = 4096;
	size_t size = (len + page - 1) / page * page;

	if (size == 0)
		size = page;
	if (posix_memalign(&p, page, size))
		return NULL;
	memset(p, 0, size);
	return p;
}

static void rt_qp_attr_from(struct rt_qp_attr *o, const struct ibv_qp_attr *a)
{
	memset(o, 0, sizeof(*o));
	o->qp_state = a->qp_state;
	o->path_mtu = a->path_mtu;
	o->qkey = a->qkey;
	o->rq_psn = a->rq_psn;
	o->sq_psn = a->sq_psn;
	o->dest_qp_num = a->dest_qp_num;
	o->qp_access_flags = a->qp_access_flags;
	o->pkey_index = a->pkey_index;
	o->max_rd_atomic = a->max_rd_atomic;
	o->max_dest_rd_atomic = a->max_dest_rd_atomic;
	o->min_rnr_timer = a->min_rnr_timer;
	o->port_num = a->port_num;
	o->timeout = a->timeout;
	o->retry_cnt = a->retry_cnt;
	o->rnr_retry = a->rnr_retry;
	o->max_send_wr = a->cap.max_send_wr;
	o->max_recv_wr = a->cap.max_recv_wr;
	o->max_send_sge = a->cap.max_send_sge;
	o->max_recv_sge = a->cap.max_recv_sge;
	o->max_inline_data = a->cap.max_inline_data;
	memcpy(o->dgid, a->ah_attr.grh.dgid.raw, 16);
	o->flow_label = a->ah_attr.grh.flow_label;
	o->sgid_index = a->ah_attr.grh.sgid_index;
	o->hop_limit = a->ah_attr.grh.hop_limit;
	o->traffic_class = a->ah_attr.grh.traffic_class;
	o->dlid = a->ah_attr.dlid;
	o->sl = a->ah_attr.sl;
	o->src_path_bits = a->ah_attr.src_path_bits;
	o->static_rate = a->ah_attr.static_rate;
	o->is_global = a->ah_attr.is_global;
	o->ah_port_num = a->ah_attr.port_num;
}

static void rt_qp_attr_to(struct ibv_qp_attr *a, const struct rt_qp_attr *o)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = (enum ibv_qp_state)o->qp_state;
	a->path_mtu = (enum ibv_mtu)o->path_mtu;
	a->qkey = o->qkey;
	a->rq_psn = o->rq_psn;
	a->sq_psn = o->sq_psn;
	a->dest_qp_num = o->dest_qp_num;
	a->qp_access_flags = o->qp_access_flags;
	a->pkey_index = o->pkey_index;
	a->max_rd_atomic = o->max_rd_atomic;
	a->max_dest_rd_atomic = o->max_dest_rd_atomic;
	a->min_rnr_timer = o->min_rnr_timer;
	a->port_num = o->port_num;
	a->timeout = o->timeout;
	a->retry_cnt = o->retry_cnt;
	a->rnr_retry = o->rnr_retry;
	a->cap.max_send_wr = o->max_send_wr;
	a->cap.max_recv_wr = o->max_recv_wr;
	a->cap.max_send_sge = o->max_send_sge;
	a->cap.max_recv_sge = o->max_recv_sge;
	a->cap.max_inline_data = o->max_inline_data;
	memcpy(a->ah_attr.grh.dgid.raw, o->dgid, 16);
	a->ah_attr.grh.flow_label = o->flow_label;
	a->ah_attr.grh.sgid_index = o->sgid_index;
	a->ah_attr.grh.hop_limit = o->hop_limit;
	a->ah_attr.grh.traffic_class = o->traffic_class;
	a->ah_attr.dlid = o->dlid;
	a->ah_attr.sl = o->sl;
	a->ah_attr.src_path_bits = o->src_path_bits;
	a->ah_attr.static_rate = o->static_rate;
	a->ah_attr.is_global = o->is_global;
	a->ah_attr.port_num = o->ah_port_num;
}

int rt_init_qp_attr(struct rt *rt, struct rdma_cm_id *id, int state, struct rt_qp_attr *out,
		    int *mask)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = (enum ibv_qp_state)state; /* input: the state wanted */
	*mask = 0;
	errno = 0;
	if (rt->init_qp_attr(id, &a, mask))
		return errno ? -errno : -EIO;
	rt_qp_attr_from(out, &a);
	return 0;
}

int rt_modify_qp(struct rt *rt, struct ibv_qp *qp, const struct rt_qp_attr *in, int mask)
{
	struct ibv_qp_attr a;

	rt_qp_attr_to(&a, in);
	return rt->ibv_modify_qp(qp, &a, mask);
}

int rt_query_qp_full(struct rt *rt, struct ibv_qp *qp, struct rt_qp_attr *out)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr init;
	int mask = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		   IBV_QP_SQ_PSN | IBV_QP_ACCESS_FLAGS | IBV_QP_MAX_QP_RD_ATOMIC |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT |
		   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_PORT | IBV_QP_CAP |
		   IBV_QP_PKEY_INDEX | IBV_QP_AV | IBV_QP_QKEY; /* qkey: a UD QP's, shown in the live state */
	int rc;

	memset(&a, 0, sizeof(a));
	memset(&init, 0, sizeof(init));
	rc = rt->query_qp(qp, &a, mask, &init);
	if (rc)
		return rc;
	rt_qp_attr_from(out, &a);
	return 0;
}

int rt_establish(struct rt *rt, struct rdma_cm_id *id)
{
	if (!rt->establish)
		return -ENOSYS;
	errno = 0;
	if (rt->establish(id))
		return errno ? -errno : -EIO;
	return 0;
}
