/*
 * dreq-collision: both sides of one RC connection call rdma_disconnect at
 * (nearly) the same moment, to see what the kernel's CM puts on the wire
 * when two DREQs cross (scripts/dreqcollision.sh runs it between two QEMU
 * guests and captures the packets; wire/testdata/README.md says what came
 * out).
 *
 *   dreq-collision server BIND_IP PORT GO_FILE
 *   dreq-collision client SERVER_IP PORT GO_FILE
 *
 * Each side connects (no data moves), prints "established", then spins
 * until GO_FILE exists (the host creates it once both sides are
 * established, so both see it within the same millisecond or so), calls
 * rdma_disconnect, waits up to 2 s for RDMA_CM_EVENT_DISCONNECTED, and
 * destroys its QP and id. It prints each moment in microseconds since it
 * saw GO_FILE.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void die(const char *what)
{
	fprintf(stderr, "dreq-collision: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* next_event waits up to ms for the channel's next event of type want. */
static int next_event(struct rdma_event_channel *ec, enum rdma_cm_event_type want,
		      struct rdma_cm_event **out, int ms)
{
	struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) != 1) {
		fprintf(stderr, "dreq-collision: no %s within %d ms\n", rdma_event_str(want), ms);
		return -1;
	}
	if (rdma_get_cm_event(ec, &ev))
		die("rdma_get_cm_event");
	if (ev->event != want) {
		fprintf(stderr, "dreq-collision: got %s (status %d), want %s\n",
			rdma_event_str(ev->event), ev->status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	*out = ev;
	return 0;
}

static struct ibv_pd *pd;
static struct ibv_cq *cq;

/* make_qp gives id a small RC QP on its device. */
static void make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr;

	pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, 4, NULL, NULL, 0);
	if (!pd || !cq)
		die("ibv_alloc_pd/ibv_create_cq");
	memset(&attr, 0, sizeof attr);
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, pd, &attr))
		die("rdma_create_qp");
}

static struct sockaddr *addr_of(const char *ip, const char *port, struct addrinfo **ai)
{
	struct addrinfo hints;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_INET;
	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(ip, port, &hints, ai))
		die("getaddrinfo");
	return (*ai)->ai_addr;
}

/* connect_server listens, accepts one client and returns its id. */
static struct rdma_cm_id *connect_server(struct rdma_event_channel *ec, const char *ip, const char *port)
{
	struct rdma_cm_id *listener, *id;
	struct rdma_cm_event *ev;
	struct rdma_conn_param param;
	struct addrinfo *ai;

	if (rdma_create_id(ec, &listener, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_bind_addr(listener, addr_of(ip, port, &ai)) || rdma_listen(listener, 1))
		die("rdma_bind_addr/rdma_listen");
	printf("listening\n");
	fflush(stdout);
	if (next_event(ec, RDMA_CM_EVENT_CONNECT_REQUEST, &ev, 60000))
		exit(1);
	id = ev->id;
	rdma_ack_cm_event(ev);
	make_qp(id);
	memset(&param, 0, sizeof param);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	if (rdma_accept(id, &param))
		die("rdma_accept");
	if (next_event(ec, RDMA_CM_EVENT_ESTABLISHED, &ev, 20000))
		exit(1);
	rdma_ack_cm_event(ev);
	return id;
}

/* connect_client connects to the server and returns its id. */
static struct rdma_cm_id *connect_client(struct rdma_event_channel *ec, const char *ip, const char *port)
{
	struct rdma_cm_id *id;
	struct rdma_cm_event *ev;
	struct rdma_conn_param param;
	struct addrinfo *ai;

	if (rdma_create_id(ec, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_resolve_addr(id, NULL, addr_of(ip, port, &ai), 2000))
		die("rdma_resolve_addr");
	if (next_event(ec, RDMA_CM_EVENT_ADDR_RESOLVED, &ev, 5000))
		exit(1);
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(id, 2000))
		die("rdma_resolve_route");
	if (next_event(ec, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev, 5000))
		exit(1);
	rdma_ack_cm_event(ev);
	make_qp(id);
	memset(&param, 0, sizeof param);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	if (rdma_connect(id, &param))
		die("rdma_connect");
	if (next_event(ec, RDMA_CM_EVENT_ESTABLISHED, &ev, 20000))
		exit(1);
	rdma_ack_cm_event(ev);
	return id;
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct rdma_cm_event *ev;
	long long go;
	int rc;

	if (argc != 5 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client IP PORT GO_FILE\n", argv[0]);
		return 2;
	}
	ec = rdma_create_event_channel();
	if (!ec)
		die("rdma_create_event_channel");
	if (!strcmp(argv[1], "server"))
		id = connect_server(ec, argv[2], argv[3]);
	else
		id = connect_client(ec, argv[2], argv[3]);
	printf("established\n");
	fflush(stdout);
	while (access(argv[4], F_OK) != 0)
		; /* spin: a sleep would add its own delay to the moment */
	go = now_us();
	rc = rdma_disconnect(id);
	printf("rdma_disconnect returned %d at +%lld us\n", rc, now_us() - go);
	if (next_event(ec, RDMA_CM_EVENT_DISCONNECTED, &ev, 2000) == 0) {
		printf("RDMA_CM_EVENT_DISCONNECTED at +%lld us\n", now_us() - go);
		rdma_ack_cm_event(ev);
	}
	rdma_destroy_qp(id);
	if (rdma_destroy_id(id))
		die("rdma_destroy_id");
	printf("id destroyed at +%lld us\n", now_us() - go);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_event_channel(ec);
	return 0;
}
