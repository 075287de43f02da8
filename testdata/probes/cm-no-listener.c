// Probe: what rdma_cm reports when a client connects to an address/port
// where nobody listens. Prints every CM event with rdma_event_str and status.
//   cm-no-listener [IP [PORT]]   (defaults 10.0.2.15 9999)
// Build: gcc -O2 -o cm-no-listener cm-no-listener.c -libverbs -lrdmacm
// Measured (Debian 6.1.0-56 guest, rxe0, scripts/qemu/run-in-guest.sh):
//   event=RDMA_CM_EVENT_ADDR_RESOLVED (0) status=0 (-)
//   event=RDMA_CM_EVENT_ROUTE_RESOLVED (2) status=0 (-)
//   event=RDMA_CM_EVENT_REJECTED (8) status=8 (-)
// rping -c -a 10.0.2.15 -p 9999 -v -C 1 says "cma event RDMA_CM_EVENT_REJECTED, error 8".
#include <netdb.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rdma_cm_event *next_event(struct rdma_event_channel *ec)
{
    struct rdma_cm_event *ev;
    if (rdma_get_cm_event(ec, &ev)) { perror("rdma_get_cm_event"); exit(1); }
    printf("event=%s (%d) status=%d (%s)\n", rdma_event_str(ev->event),
           ev->event, ev->status, ev->status < 0 ? strerror(-ev->status) : "-");
    return ev;
}

int main(int argc, char **argv)
{
    const char *ip = argc > 1 ? argv[1] : "10.0.2.15";
    const char *port = argc > 2 ? argv[2] : "9999";
    struct rdma_event_channel *ec = rdma_create_event_channel();
    struct rdma_cm_id *id;
    struct rdma_cm_event *ev;
    struct addrinfo hints = { .ai_family = AF_INET }, *dst;

    if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP)) { perror("create"); return 1; }
    if (getaddrinfo(ip, port, &hints, &dst)) { fprintf(stderr, "getaddrinfo\n"); return 1; }
    if (rdma_resolve_addr(id, NULL, dst->ai_addr, 2000)) { perror("rdma_resolve_addr"); return 1; }
    ev = next_event(ec);
    if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED) return 2;
    rdma_ack_cm_event(ev);
    if (rdma_resolve_route(id, 2000)) { perror("rdma_resolve_route"); return 1; }
    ev = next_event(ec);
    if (ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED) return 2;
    rdma_ack_cm_event(ev);

    struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 } };
    if (rdma_create_qp(id, NULL, &qa)) { perror("rdma_create_qp"); return 1; }
    struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1,
                                  .retry_count = 7, .rnr_retry_count = 7 };
    if (rdma_connect(id, &cp)) { perror("rdma_connect"); return 1; }
    ev = next_event(ec);   // the answer we are after
    // For REJECTED, status is the IB CM reject reason (enum ib_cm_rej_reason:
    // 8 = IB_CM_REJ_INVALID_SERVICE_ID, i.e. nobody listens on that port;
    // 28 = IB_CM_REJ_CONSUMER_DEFINED, i.e. the peer called rdma_reject).
    rdma_ack_cm_event(ev);
    rdma_destroy_qp(id);
    rdma_destroy_id(id);
    rdma_destroy_event_channel(ec);
    return 0;
}
