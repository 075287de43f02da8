// C side of verbs/rdmacore: a table of function pointers resolved with
// dlsym at run time (no link-time dependency on libibverbs/librdmacm) and
// small helpers for what Go cannot reach directly: static inline verbs
// (ibv_post_send, ibv_post_recv, ibv_poll_cq), macros (ibv_query_port) and
// union fields (wr.rdma.remote_addr, imm_data).
#ifndef RDMATOUR_SHIM_H
#define RDMATOUR_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <endian.h>
#include <errno.h> /* the shim returns -errno; Go reads C.EAGAIN, C.ENOSYS */
#include <sys/types.h>
#include <sys/socket.h>
#include "abi.h" /* the rdma-core ABI, declared in the project: no -dev headers needed */

struct rt {
	void *verbs_handle;
	void *cm_handle;

	/* libibverbs */
	struct ibv_device **(*get_device_list)(int *num);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	uint64_t (*get_device_guid)(struct ibv_device *dev); /* __be64 */
	struct ibv_context *(*open_device)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	int (*query_device)(struct ibv_context *ctx, struct ibv_device_attr *attr);
	int (*query_port)(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *attr);
	int (*query_gid)(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid);
	ssize_t (*query_gid_table)(struct ibv_context *ctx, struct ibv_gid_entry *entries,
				   size_t max, uint32_t flags, size_t entry_size); /* optional */
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			struct ibv_qp_init_attr *init_attr);
	const char *(*wc_status_str)(enum ibv_wc_status status);
	struct ibv_qp *(*ibv_create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	int (*ibv_modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
	int (*ibv_destroy_qp)(struct ibv_qp *qp);
	/* shared receive queues and async events (shim_srq.c); optional */
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*get_async_event)(struct ibv_context *ctx, struct ibv_async_event *ev);
	void (*ack_async_event)(struct ibv_async_event *ev);
	struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *ctx);
	int (*destroy_comp_channel)(struct ibv_comp_channel *ch);
	int (*get_cq_event)(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **cq_context);
	void (*ack_cq_events)(struct ibv_cq *cq, unsigned int nevents);

	/* librdmacm */
	struct rdma_event_channel *(*create_event_channel)(void);
	void (*destroy_event_channel)(struct rdma_event_channel *ch);
	int (*create_id)(struct rdma_event_channel *ch, struct rdma_cm_id **id, void *ctx,
			 enum rdma_port_space ps);
	int (*destroy_id)(struct rdma_cm_id *id);
	int (*bind_addr)(struct rdma_cm_id *id, struct sockaddr *addr);
	int (*listen)(struct rdma_cm_id *id, int backlog);
	int (*resolve_addr)(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst,
			    int timeout_ms);
	int (*resolve_route)(struct rdma_cm_id *id, int timeout_ms);
	int (*connect)(struct rdma_cm_id *id, struct rdma_conn_param *param);
	int (*accept)(struct rdma_cm_id *id, struct rdma_conn_param *param);
	int (*reject)(struct rdma_cm_id *id, const void *private_data, uint8_t len);
	int (*disconnect)(struct rdma_cm_id *id);
	int (*create_qp)(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	void (*destroy_qp)(struct rdma_cm_id *id);
	int (*get_cm_event)(struct rdma_event_channel *ch, struct rdma_cm_event **event);
	int (*ack_cm_event)(struct rdma_cm_event *event);
	const char *(*event_str)(enum rdma_cm_event_type event);
	int (*init_qp_attr)(struct rdma_cm_id *id, struct ibv_qp_attr *attr, int *mask);
	int (*establish)(struct rdma_cm_id *id); /* optional: librdmacm >= rdma-core 24 */
};

/* rt_open loads both libraries; on failure it returns NULL and writes a
 * message to err (which library, dlerror text). */
struct rt *rt_open(const char *verbs_lib, const char *cm_lib, char *err, size_t errlen,
		   int *which); /* which: 1 libibverbs, 2 librdmacm; 3: a missing symbol */
void rt_close(struct rt *rt);

/* struct ibv_ah_attr flattened for Go (shim_ud.c). */
struct rt_ah_attr {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t sgid_index, hop_limit, traffic_class;
	uint16_t dlid;
	uint8_t sl, src_path_bits, static_rate, is_global, port_num;
};

/* A CM event, copied out before it is acked. */
struct rt_event {
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	int type;
	int status;
	int has_conn;
	uint8_t private_data[256];
	int private_data_len;
	uint8_t responder_resources, initiator_depth, rnr_retry_count;
	uint32_t qp_num;
	/* event->param.ud, on an RDMA_PS_UDP id (rt_copy_ud) */
	int is_ud;
	uint32_t ud_qp_num, ud_qkey;
	struct rt_ah_attr ud_ah;
};

/* rt_wait_fd polls fd for input for at most timeout_ms: 1 readable, 0
 * timeout, -errno on error. */
int rt_wait_fd(int fd, int timeout_ms);
int rt_set_nonblock(int fd);
/* rt_get_event: 0 and *out filled (event acked), or -errno (-EAGAIN: none). */
int rt_get_event(struct rt *rt, struct rdma_event_channel *ch, struct rt_event *out);

/* Socket addresses: family AF_INET (ip[0..3]) or AF_INET6 (ip[0..15]). */
void rt_make_sa(struct sockaddr_storage *ss, int family, const uint8_t *ip, uint16_t port);
int rt_read_sa(const struct sockaddr *sa, uint8_t *ip, uint16_t *port); /* family or 0 */
struct sockaddr *rt_local_addr(struct rdma_cm_id *id);
struct sockaddr *rt_peer_addr(struct rdma_cm_id *id);

int rt_query_port(struct rt *rt, struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);

int rt_post_send(struct ibv_qp *qp, uint64_t wr_id, int opcode, unsigned int flags,
		 struct ibv_sge *sges, int num_sge, uint64_t remote_addr, uint32_t rkey,
		 uint32_t imm_host, uint64_t compare_add, uint64_t swap);
/* rt_post_send1 is rt_post_send with its one SGE passed by value: the
 * caller passes no pointer into its own memory. */
int rt_post_send1(struct ibv_qp *qp, uint64_t wr_id, int opcode, unsigned int flags,
		  uint64_t sge_addr, uint32_t sge_length, uint32_t sge_lkey,
		  uint64_t remote_addr, uint32_t rkey, uint32_t imm_host,
		  uint64_t compare_add, uint64_t swap);
int rt_post_recv(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sges, int num_sge);

/* The fields every send WR sets, the rest zeroed: the caller adds its
 * opcode's own (rdma, atomic or ud) and the immediate data. */
static inline void rt_send_wr_init(struct ibv_send_wr *wr, uint64_t wr_id, int opcode,
				   unsigned int flags, struct ibv_sge *sges, int num_sge)
{
	*wr = (struct ibv_send_wr){ .wr_id = wr_id, .opcode = (enum ibv_wr_opcode)opcode,
				    .send_flags = flags, .sg_list = num_sge ? sges : NULL,
				    .num_sge = num_sge };
}

/* A receive WR, for a QP's receive queue or an SRQ. */
static inline void rt_recv_wr_init(struct ibv_recv_wr *wr, uint64_t wr_id, struct ibv_sge *sges,
				   int num_sge)
{
	*wr = (struct ibv_recv_wr){ .wr_id = wr_id, .sg_list = num_sge ? sges : NULL, .num_sge = num_sge };
}

struct rt_wc {
	uint64_t wr_id;
	int status;
	int opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_host;
	int has_imm;
	uint32_t qp_num;
	uint32_t src_qp;
	int has_grh; /* wc_flags & IBV_WC_GRH */
};
/* rt_poll_cq polls up to n completions into out: count or -errno. */
int rt_poll_cq(struct ibv_cq *cq, int n, struct rt_wc *out);

int rt_query_qp(struct rt *rt, struct ibv_qp *qp, struct ibv_qp_attr *attr,
		struct ibv_qp_init_attr *init);

/* struct ibv_qp_attr flattened for Go (no unions, no nested structs). */
struct rt_qp_attr {
	int qp_state;
	int path_mtu; /* enum ibv_mtu */
	uint32_t qkey, rq_psn, sq_psn, dest_qp_num, qp_access_flags;
	uint16_t pkey_index;
	uint8_t max_rd_atomic, max_dest_rd_atomic, min_rnr_timer, port_num;
	uint8_t timeout, retry_cnt, rnr_retry;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data;
	/* ah_attr */
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t sgid_index, hop_limit, traffic_class;
	uint16_t dlid;
	uint8_t sl, src_path_bits, static_rate, is_global, ah_port_num;
};
/* rdma_init_qp_attr for state: 0 or -errno. */
int rt_init_qp_attr(struct rt *rt, struct rdma_cm_id *id, int state, struct rt_qp_attr *out,
		    int *mask);
/* ibv_modify_qp: 0 or the errno it returned. */
int rt_modify_qp(struct rt *rt, struct ibv_qp *qp, const struct rt_qp_attr *in, int mask);
/* ibv_query_qp of everything the tour shows (AV and P_Key index included). */
int rt_query_qp_full(struct rt *rt, struct ibv_qp *qp, struct rt_qp_attr *out);
/* rdma_establish: 0 or -errno (-ENOSYS: librdmacm has no rdma_establish). */
int rt_establish(struct rt *rt, struct rdma_cm_id *id);

/* Unreliable datagram (shim_ud.c). */
struct ibv_ah *rt_create_ah(struct rt *rt, struct ibv_pd *pd, const struct rt_ah_attr *in, int *err);
int rt_destroy_ah(struct rt *rt, struct ibv_ah *ah);
struct ibv_ah *rt_create_ah_from_wc(struct rt *rt, struct ibv_pd *pd, int has_grh, uint32_t src_qp, uint32_t qp_num,
				    const void *grh, uint8_t port_num, struct rt_ah_attr *out, int *err);
int rt_post_send_ud(struct ibv_qp *qp, uint64_t wr_id, int opcode, unsigned int flags,
		    struct ibv_sge *sges, int num_sge, struct ibv_ah *ah, uint32_t remote_qpn,
		    uint32_t remote_qkey, uint32_t imm_host);
void rt_copy_ud(const struct rdma_cm_event *ev, struct rt_event *out);

/* Page-aligned zeroed memory outside the Go heap. */
void *rt_alloc(size_t len);

/* Thin wrappers so Go can call through the table (and read errno). */
static inline struct ibv_device **rt_get_device_list(struct rt *rt, int *n) { return rt->get_device_list(n); }
static inline void rt_free_device_list(struct rt *rt, struct ibv_device **l) { rt->free_device_list(l); }
static inline const char *rt_get_device_name(struct rt *rt, struct ibv_device *d) { return rt->get_device_name(d); }
static inline uint64_t rt_get_device_guid(struct rt *rt, struct ibv_device *d) { return be64toh(rt->get_device_guid(d)); }
static inline struct ibv_context *rt_open_device(struct rt *rt, struct ibv_device *d) { return rt->open_device(d); }
static inline int rt_close_device(struct rt *rt, struct ibv_context *c) { return rt->close_device(c); }
static inline int rt_query_device(struct rt *rt, struct ibv_context *c, struct ibv_device_attr *a) { return rt->query_device(c, a); }
static inline int rt_query_gid(struct rt *rt, struct ibv_context *c, uint8_t port, int index, uint8_t *raw16) { return rt->query_gid(c, port, index, (union ibv_gid *)raw16); }
static inline int rt_has_gid_table(struct rt *rt) { return rt->query_gid_table != NULL; }
static inline ssize_t rt_query_gid_table(struct rt *rt, struct ibv_context *c, struct ibv_gid_entry *e, size_t max) { return rt->query_gid_table(c, e, max, 0, sizeof(*e)); }
static inline struct ibv_pd *rt_alloc_pd(struct rt *rt, struct ibv_context *c) { return rt->alloc_pd(c); }
static inline int rt_dealloc_pd(struct rt *rt, struct ibv_pd *pd) { return rt->dealloc_pd(pd); }
static inline struct ibv_cq *rt_create_cq(struct rt *rt, struct ibv_context *c, int cqe) { return rt->create_cq(c, cqe, NULL, NULL, 0); }
static inline int rt_destroy_cq(struct rt *rt, struct ibv_cq *cq) { return rt->destroy_cq(cq); }
/* Completion channels; ibv_req_notify_cq is a static inline call through
 * the context's ops, like ibv_poll_cq. */
static inline struct ibv_comp_channel *rt_create_comp_channel(struct rt *rt, struct ibv_context *c) { return rt->create_comp_channel(c); }
static inline int rt_destroy_comp_channel(struct rt *rt, struct ibv_comp_channel *ch) { return rt->destroy_comp_channel(ch); }
static inline int rt_comp_channel_fd(struct ibv_comp_channel *ch) { return ch->fd; }
static inline struct ibv_cq *rt_create_cq_on(struct rt *rt, struct ibv_context *c, int cqe, struct ibv_comp_channel *ch) { return rt->create_cq(c, cqe, NULL, ch, 0); }
static inline int rt_req_notify_cq(struct ibv_cq *cq, int solicited_only) { return cq->context->ops.req_notify_cq(cq, solicited_only); }
static inline int rt_get_cq_event(struct rt *rt, struct ibv_comp_channel *ch, struct ibv_cq **cq) { void *ctx; return rt->get_cq_event(ch, cq, &ctx) ? -errno : 0; }
static inline void rt_ack_cq_events(struct rt *rt, struct ibv_cq *cq, unsigned int n) { rt->ack_cq_events(cq, n); }
static inline struct ibv_mr *rt_reg_mr(struct rt *rt, struct ibv_pd *pd, void *addr, size_t len, int access) { return rt->reg_mr(pd, addr, len, access); }
static inline int rt_dereg_mr(struct rt *rt, struct ibv_mr *mr) { return rt->dereg_mr(mr); }
static inline const char *rt_wc_status_str(struct rt *rt, int s) { return rt->wc_status_str((enum ibv_wc_status)s); }

static inline struct rdma_event_channel *rt_create_event_channel(struct rt *rt) { return rt->create_event_channel(); }
static inline void rt_destroy_event_channel(struct rt *rt, struct rdma_event_channel *ch) { rt->destroy_event_channel(ch); }
static inline int rt_create_id(struct rt *rt, struct rdma_event_channel *ch, struct rdma_cm_id **id, int ps) { return rt->create_id(ch, id, NULL, (enum rdma_port_space)ps); }
static inline int rt_destroy_id(struct rt *rt, struct rdma_cm_id *id) { return rt->destroy_id(id); }
static inline int rt_bind_addr(struct rt *rt, struct rdma_cm_id *id, struct sockaddr_storage *a) { return rt->bind_addr(id, (struct sockaddr *)a); }
static inline int rt_listen(struct rt *rt, struct rdma_cm_id *id, int backlog) { return rt->listen(id, backlog); }
static inline int rt_resolve_addr(struct rt *rt, struct rdma_cm_id *id, struct sockaddr_storage *src, struct sockaddr_storage *dst, int ms) { return rt->resolve_addr(id, (struct sockaddr *)src, (struct sockaddr *)dst, ms); }
static inline int rt_resolve_route(struct rt *rt, struct rdma_cm_id *id, int ms) { return rt->resolve_route(id, ms); }
static inline int rt_connect(struct rt *rt, struct rdma_cm_id *id, struct rdma_conn_param *p) { return rt->connect(id, p); }
static inline int rt_accept(struct rt *rt, struct rdma_cm_id *id, struct rdma_conn_param *p) { return rt->accept(id, p); }
static inline int rt_reject(struct rt *rt, struct rdma_cm_id *id, const void *pd, uint8_t len) { return rt->reject(id, pd, len); }
static inline int rt_disconnect(struct rt *rt, struct rdma_cm_id *id) { return rt->disconnect(id); }
static inline int rt_create_qp(struct rt *rt, struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *a) { return rt->create_qp(id, pd, a); }
static inline void rt_destroy_qp(struct rt *rt, struct rdma_cm_id *id) { rt->destroy_qp(id); }
static inline struct ibv_qp *rt_ibv_create_qp(struct rt *rt, struct ibv_pd *pd, struct ibv_qp_init_attr *a) { return rt->ibv_create_qp(pd, a); }
static inline int rt_ibv_destroy_qp(struct rt *rt, struct ibv_qp *qp) { return rt->ibv_destroy_qp(qp); }
static inline struct ibv_context *rt_pd_context(struct ibv_pd *pd) { return pd->context; }
static inline const char *rt_event_str(struct rt *rt, int t) { return rt->event_str((enum rdma_cm_event_type)t); }
static inline int rt_event_channel_fd(struct rdma_event_channel *ch) { return ch->fd; }
static inline struct ibv_context *rt_id_verbs(struct rdma_cm_id *id) { return id->verbs; }
static inline uint8_t rt_id_port(struct rdma_cm_id *id) { return id->port_num; }
static inline struct ibv_qp *rt_id_qp(struct rdma_cm_id *id) { return id->qp; }
static inline struct ibv_device *rt_ctx_device(struct ibv_context *c) { return c->device; }
static inline int rt_device_transport(struct ibv_device *d) { return d->transport_type; }
static inline int rt_gid_entry_port(struct ibv_gid_entry *e) { return e->port_num; }

/* shim_srq.c */
struct ibv_srq *rt_create_srq(struct rt *rt, struct ibv_pd *pd, uint32_t max_wr, uint32_t max_sge, struct ibv_srq_attr *got);
int rt_modify_srq_limit(struct rt *rt, struct ibv_srq *srq, uint32_t limit);
int rt_query_srq(struct rt *rt, struct ibv_srq *srq, struct ibv_srq_attr *out);
int rt_destroy_srq(struct rt *rt, struct ibv_srq *srq);
int rt_post_srq_recv(struct ibv_srq *srq, uint64_t wr_id, struct ibv_sge *sges, int num_sge);
/* rt_next_async_event: 1 and *type, *srq set (the event acked), 0 when
 * none is waiting (async_fd is made non-blocking), -errno on error. */
int rt_next_async_event(struct rt *rt, struct ibv_context *ctx, int *type, struct ibv_srq **srq);
int rt_has_srq(struct rt *rt);

#endif
