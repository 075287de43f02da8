/* udprobe: measures what rdma_cm and a UD QP do on a real device (rxe in
 * the QEMU guest), for the sim to copy. One process plays both sides with
 * two event channels: a PS_UDP listener and an active id.
 *
 *   udprobe ADDR PORT
 *
 * Prints one "fact: ..." line per measurement. Build:
 *   gcc -std=c99 -Wall -o udprobe udprobe.c -libverbs -lrdmacm */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define BUF 4096

static struct rdma_cm_event *next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = {.fd = ch->fd, .events = POLLIN};
	struct rdma_cm_event *ev;
	if (poll(&p, 1, ms) <= 0)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

static void show_ud(const char *who, struct rdma_cm_event *ev)
{
	struct rdma_ud_param *ud = &ev->param.ud;
	char g[64];
	inet_ntop(AF_INET6, ud->ah_attr.grh.dgid.raw, g, sizeof g);
	printf("fact: %s event=%s status=%d ud.qp_num=%u ud.qkey=0x%x private_data_len=%u "
	       "ah_attr={is_global=%u dgid=%s sgid_index=%u hop_limit=%u tclass=%u flow_label=%u "
	       "dlid=%u sl=%u port_num=%u static_rate=%u}\n",
	       who, rdma_event_str(ev->event), ev->status, ud->qp_num, ud->qkey,
	       ud->private_data_len, ud->ah_attr.is_global, g, ud->ah_attr.grh.sgid_index,
	       ud->ah_attr.grh.hop_limit, ud->ah_attr.grh.traffic_class,
	       ud->ah_attr.grh.flow_label, ud->ah_attr.dlid, ud->ah_attr.sl,
	       ud->ah_attr.port_num, ud->ah_attr.static_rate);
}

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	for (int i = 0; i < ms; i++) {
		int n = ibv_poll_cq(cq, 1, wc);
		if (n != 0)
			return n;
		usleep(1000);
	}
	return 0;
}

struct side {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
};

static void make_side(struct rdma_cm_id *id, struct side *s)
{
	struct ibv_qp_init_attr a = {.qp_type = IBV_QPT_UD,
				     .cap = {.max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1}};
	s->pd = ibv_alloc_pd(id->verbs);
	s->cq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	s->buf = aligned_alloc(4096, BUF);
	memset(s->buf, 0, BUF);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	a.send_cq = a.recv_cq = s->cq;
	if (rdma_create_qp(id, s->pd, &a)) {
		perror("rdma_create_qp");
		exit(1);
	}
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr ia;
	ibv_query_qp(id->qp, &qa, IBV_QP_STATE | IBV_QP_QKEY | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_SQ_PSN, &ia);
	printf("fact: after rdma_create_qp(UD) qp_num=%u state=%d qkey=0x%x port=%u pkey_index=%u sq_psn=%u\n",
	       id->qp->qp_num, qa.qp_state, qa.qkey, qa.port_num, qa.pkey_index, qa.sq_psn);
}

static void post_recv(struct ibv_qp *qp, struct side *s, int len)
{
	struct ibv_sge sge = {.addr = (uintptr_t)s->buf, .length = len, .lkey = s->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = 7, .sg_list = &sge, .num_sge = 1}, *bad;
	memset(s->buf, 0xee, BUF);
	int r = ibv_post_recv(qp, &wr, &bad);
	printf("fact: ibv_post_recv(len=%d) = %d\n", len, r);
}

/* expect_recv polls the receiver for ms and prints what arrived. */
static void expect_recv(struct side *s, const char *what, int ms)
{
	struct ibv_wc wc;
	int n = poll_one(s->cq, &wc, ms);
	if (n != 1) {
		printf("fact: %s: nothing arrived in %d ms\n", what, ms);
		return;
	}
	printf("fact: %s: recv completion status=%s (%d) opcode=%d byte_len=%u wc_flags=0x%x src_qp=%u "
	       "slid=%u sl=%u pkey_index=%u dlid_path_bits=%u vendor_err=%u\n", what,
	       ibv_wc_status_str(wc.status), wc.status, wc.opcode, wc.byte_len, wc.wc_flags, wc.src_qp,
	       wc.slid, wc.sl, wc.pkey_index, wc.dlid_path_bits, wc.vendor_err);
	printf("fact: %s: first 48 bytes:", what);
	for (int i = 0; i < 48; i++)
		printf("%s%02x", i % 4 ? "" : " ", (unsigned char)s->buf[i]);
	printf("\n");
}

static int send_ud(struct rdma_cm_id *id, struct side *s, struct ibv_ah *ah, uint32_t qpn,
		   uint32_t qkey, int len, const char *what)
{
	struct ibv_sge sge = {.addr = (uintptr_t)s->buf, .length = len, .lkey = s->mr->lkey};
	struct ibv_send_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED}, *bad;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	int r = ibv_post_send(id->qp, &wr, &bad);
	printf("fact: %s: ibv_post_send(len=%d qpn=%u qkey=0x%x) = %d (%s)\n", what, len, qpn, qkey, r,
	       r ? strerror(r) : "ok");
	if (r)
		return r;
	struct ibv_wc wc;
	int n = poll_one(s->cq, &wc, 2000);
	if (n == 1)
		printf("fact: %s: send completion status=%s (%d) opcode=%d byte_len=%u vendor_err=%u\n", what,
		       ibv_wc_status_str(wc.status), wc.status, wc.opcode, wc.byte_len, wc.vendor_err);
	else
		printf("fact: %s: no send completion in 2 s (n=%d)\n", what, n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: udprobe ADDR PORT\n");
		return 2;
	}
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2]))};
	inet_pton(AF_INET, argv[1], &sa.sin_addr);
	struct rdma_event_channel *sch = rdma_create_event_channel(), *cch = rdma_create_event_channel();
	struct rdma_cm_id *lid, *cid, *sid;
	struct rdma_cm_event *ev;
	if (rdma_create_id(sch, &lid, NULL, RDMA_PS_UDP) || rdma_bind_addr(lid, (struct sockaddr *)&sa) ||
	    rdma_listen(lid, 1)) {
		perror("listen");
		return 1;
	}
	rdma_create_id(cch, &cid, NULL, RDMA_PS_UDP);
	rdma_resolve_addr(cid, NULL, (struct sockaddr *)&sa, 2000);
	ev = next_event(cch, 3000);
	printf("fact: client event=%s status=%d\n", rdma_event_str(ev->event), ev->status);
	rdma_ack_cm_event(ev);
	rdma_resolve_route(cid, 2000);
	ev = next_event(cch, 3000);
	printf("fact: client event=%s status=%d\n", rdma_event_str(ev->event), ev->status);
	rdma_ack_cm_event(ev);
	struct side cs, ss;
	make_side(cid, &cs);
	struct rdma_conn_param cp = {.private_data = "hello-ud", .private_data_len = 9};
	printf("fact: rdma_connect(UD) = %d\n", rdma_connect(cid, &cp));
	ev = next_event(sch, 3000);
	show_ud("server", ev);
	printf("fact: server CONNECT_REQUEST private_data=%.9s\n", (const char *)ev->param.ud.private_data);
	sid = ev->id;
	rdma_ack_cm_event(ev);
	make_side(sid, &ss);
	struct rdma_conn_param ap = {.private_data = "ok", .private_data_len = 3};
	printf("fact: rdma_accept(UD) = %d\n", rdma_accept(sid, &ap));
	ev = next_event(cch, 3000);
	show_ud("client", ev);
	printf("fact: server qp_num=%u\n", sid->qp->qp_num);
	struct ibv_ah *ah = ibv_create_ah(cs.pd, &ev->param.ud.ah_attr);
	uint32_t qpn = ev->param.ud.qp_num, qkey = ev->param.ud.qkey;
	printf("fact: accept private_data_len=%u\n", ev->param.ud.private_data_len);
	rdma_ack_cm_event(ev);
	printf("fact: ibv_create_ah = %p\n", (void *)ah);
	ev = next_event(sch, 500);
	printf("fact: server event after accept (500 ms): %s\n", ev ? rdma_event_str(ev->event) : "none");
	if (ev)
		rdma_ack_cm_event(ev);

	strcpy(cs.buf, "dropped: sent before any RECV");
	send_ud(cid, &cs, ah, qpn, qkey, 30, "before-recv");
	usleep(200000);
	post_recv(sid->qp, &ss, BUF);
	expect_recv(&ss, "before-recv", 500);

	strcpy(cs.buf, "hello over UD");
	send_ud(cid, &cs, ah, qpn, qkey, 14, "normal");
	expect_recv(&ss, "normal", 2000);

	post_recv(sid->qp, &ss, BUF);
	send_ud(cid, &cs, ah, qpn, 0x1234, 14, "wrong-qkey");
	expect_recv(&ss, "wrong-qkey", 500);
	send_ud(cid, &cs, ah, qpn + 100, qkey, 14, "no-such-qpn");
	expect_recv(&ss, "no-such-qpn", 500);
	send_ud(cid, &cs, ah, qpn, qkey, 1024, "mtu-1024");
	expect_recv(&ss, "mtu-1024", 2000);
	post_recv(sid->qp, &ss, BUF);
	send_ud(cid, &cs, ah, qpn, qkey, 1025, "mtu-1025");
	expect_recv(&ss, "mtu-1025", 500);
	send_ud(cid, &cs, ah, qpn, qkey, 4096, "mtu-4096");
	expect_recv(&ss, "mtu-4096", 500);
	/* a receive buffer too small for GRH + payload */
	post_recv(sid->qp, &ss, 40 + 10);
	send_ud(cid, &cs, ah, qpn, qkey, 100, "recv-too-small");
	expect_recv(&ss, "recv-too-small", 1000);
	post_recv(sid->qp, &ss, BUF);
	send_ud(cid, &cs, ah, qpn, qkey, 14, "after-too-small");
	expect_recv(&ss, "after-too-small", 1000);
	/* a receive buffer without room for the GRH at all */
	post_recv(sid->qp, &ss, 20);
	send_ud(cid, &cs, ah, qpn, qkey, 0, "zero-len-recv20");
	expect_recv(&ss, "zero-len-recv20", 1000);
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr ia;
	ibv_query_qp(sid->qp, &qa, IBV_QP_STATE, &ia);
	printf("fact: server qp state at end=%d\n", qa.qp_state);
	ibv_query_qp(cid->qp, &qa, IBV_QP_STATE, &ia);
	printf("fact: client qp state at end=%d\n", qa.qp_state);
	printf("fact: rdma_disconnect(client UD) = %d errno=%d\n", rdma_disconnect(cid), errno);
	ev = next_event(sch, 300);
	printf("fact: server event after disconnect: %s\n", ev ? rdma_event_str(ev->event) : "none");
	ibv_destroy_ah(ah);
	rdma_destroy_qp(cid);
	rdma_destroy_qp(sid);
	rdma_destroy_id(sid);
	rdma_destroy_id(cid);
	rdma_destroy_id(lid);
	printf("fact: done\n");
	return 0;
}
