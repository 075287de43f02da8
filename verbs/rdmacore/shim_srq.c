// Shared receive queues and the device's asynchronous events, through the
// table rt_open filled in (shim.c): ibv_create_srq, ibv_modify_srq with
// IBV_SRQ_LIMIT, ibv_query_srq, ibv_destroy_srq, ibv_post_srq_recv (a
// static inline call through the context's ops), and
// ibv_get_async_event / ibv_ack_async_event on a non-blocking async_fd.
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "shim.h"

int rt_has_srq(struct rt *rt)
{
	return rt->create_srq && rt->modify_srq && rt->query_srq && rt->destroy_srq &&
	       rt->get_async_event && rt->ack_async_event;
}

struct ibv_srq *rt_create_srq(struct rt *rt, struct ibv_pd *pd, uint32_t max_wr, uint32_t max_sge,
			      struct ibv_srq_attr *got)
{
	struct ibv_srq_init_attr init;

	memset(&init, 0, sizeof(init));
	init.attr.max_wr = max_wr;
	init.attr.max_sge = max_sge;
	struct ibv_srq *srq = rt->create_srq(pd, &init);
	if (srq)
		*got = init.attr; /* the device writes back what it granted */
	return srq;
}

int rt_modify_srq_limit(struct rt *rt, struct ibv_srq *srq, uint32_t limit)
{
	struct ibv_srq_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.srq_limit = limit;
	return rt->modify_srq(srq, &attr, IBV_SRQ_LIMIT);
}

int rt_query_srq(struct rt *rt, struct ibv_srq *srq, struct ibv_srq_attr *out)
{
	memset(out, 0, sizeof(*out));
	return rt->query_srq(srq, out);
}

int rt_destroy_srq(struct rt *rt, struct ibv_srq *srq)
{
	return rt->destroy_srq(srq);
}

int rt_post_srq_recv(struct ibv_srq *srq, uint64_t wr_id, struct ibv_sge *sges, int num_sge)
{
	struct ibv_recv_wr wr, *bad = NULL;

	rt_recv_wr_init(&wr, wr_id, sges, num_sge);
	return ibv_post_srq_recv(srq, &wr, &bad);
}

int rt_next_async_event(struct rt *rt, struct ibv_context *ctx, int *type, struct ibv_srq **srq)
{
	struct ibv_async_event ev;
	int flags = fcntl(ctx->async_fd, F_GETFL);

	if (flags < 0)
		return -errno;
	if (!(flags & O_NONBLOCK) && fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	if (rt->get_async_event(ctx, &ev) != 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	*type = ev.event_type;
	*srq = NULL;
	if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED || ev.event_type == IBV_EVENT_SRQ_ERR)
		*srq = ev.element.srq;
	rt->ack_async_event(&ev); /* ibv_destroy_srq waits for every event acked */
	return 1;
}
