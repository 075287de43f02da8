// Probe: what ibv_post_send returns on an RC QP that rdma_create_qp left in
// INIT (before rdma_connect), for a SEND and an RDMA WRITE.
//   post-send-init [IP]   (default 10.0.2.15; resolves only, never connects)
// Build: gcc -O2 -o post-send-init post-send-init.c -libverbs -lrdmacm
// Measured (Debian 6.1.0-56 guest, rxe0, rdma-core 44 on the host):
//   qp_num=19 state=INIT
//   ibv_post_send(SEND) = 22 (Invalid argument) errno=22 bad_wr=NULL
//   ibv_post_send(RDMA_WRITE) = 22 (Invalid argument) errno=22 bad_wr=NULL
//   ibv_poll_cq = 0, state stays INIT
// Note bad_wr is left NULL by the rxe provider on this path.
#include <errno.h>
#include <netdb.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *st(enum ibv_qp_state s)
{
    static const char *n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
    return s <= IBV_QPS_ERR ? n[s] : "?";
}

int main(int argc, char **argv)
{
    const char *ip = argc > 1 ? argv[1] : "10.0.2.15";
    struct rdma_event_channel *ec = rdma_create_event_channel();
    struct rdma_cm_id *id;
    struct rdma_cm_event *ev;
    struct addrinfo hints = { .ai_family = AF_INET }, *dst;

    if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP)) { perror("create"); return 1; }
    if (getaddrinfo(ip, "7471", &hints, &dst)) { fprintf(stderr, "getaddrinfo\n"); return 1; }
    if (rdma_resolve_addr(id, NULL, dst->ai_addr, 2000) || rdma_get_cm_event(ec, &ev)) { perror("resolve_addr"); return 1; }
    rdma_ack_cm_event(ev);

    struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
    struct ibv_cq *cq = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
    struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 } };
    if (!pd || !cq || rdma_create_qp(id, pd, &qa)) { perror("rdma_create_qp"); return 1; }

    struct ibv_qp_attr attr; struct ibv_qp_init_attr ia;
    ibv_query_qp(id->qp, &attr, IBV_QP_STATE, &ia);
    printf("qp_num=%u state=%s\n", id->qp->qp_num, st(attr.qp_state));

    static char buf[64] __attribute__((aligned(64)));
    struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_LOCAL_WRITE);
    if (!mr) { perror("ibv_reg_mr"); return 1; }
    struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 8, .lkey = mr->lkey };
    enum ibv_wr_opcode ops[] = { IBV_WR_SEND, IBV_WR_RDMA_WRITE };
    for (int i = 0; i < 2; i++) {
        struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
            .opcode = ops[i], .send_flags = IBV_SEND_SIGNALED }, *bad = NULL;
        wr.wr.rdma.remote_addr = 0x1000; wr.wr.rdma.rkey = 1;
        errno = 0;
        int rc = ibv_post_send(id->qp, &wr, &bad);
        printf("ibv_post_send(%s) = %d (%s) errno=%d bad_wr=%s\n",
               i ? "RDMA_WRITE" : "SEND", rc, rc > 0 ? strerror(rc) : "-", errno,
               bad == &wr ? "wr" : bad ? "other" : "NULL");
    }
    struct ibv_wc wc;
    int n = ibv_poll_cq(cq, 1, &wc);
    printf("ibv_poll_cq = %d%s%s\n", n, n > 0 ? " status=" : "",
           n > 0 ? ibv_wc_status_str(wc.status) : "");
    ibv_query_qp(id->qp, &attr, IBV_QP_STATE, &ia);
    printf("state after = %s\n", st(attr.qp_state));
    return 0;
}
