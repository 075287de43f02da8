package export

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
)

// The exported program's frame: includes, the seed's constants, the
// variables (steps.CDecls), the helpers the symbolic statements call, and
// the seed's command line. The steps' statements go in main.

// Prelude is everything an exported statement compiles against: the
// includes, the seed's constants, the variables and the helpers. A
// program is the prelude, then main with the statements.
func Prelude() string { return cIncludes + "\n" + cConstants() + "\n" + steps.CDecls + cHelpers }

// cIncludes are the headers every printed line and the program need.
const cIncludes = `#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
`

// cConstants are the seed's #defines, from the Go constants.
func cConstants() string {
	return fmt.Sprintf("#define BUF_SIZE %d\n#define CQ_DEPTH %d\n#define TIMEOUT_MS %d\n#define DOORBELL_VALUE %d\n#define UD_RESEND_MS %d\n#define HANGUP_WAIT_MS %d\n",
		steps.BufSize, steps.CQDepth, steps.ResolveTimeout.Milliseconds(), steps.DoorbellValue, steps.UDResendEvery.Milliseconds(), steps.ServerHangupWaitMS)
}

// cHelpers are the functions the symbolic statements call: what the
// screen shows as one call is a wait or a check in a program.
const cHelpers = `
/* How the server learned that the data is there (wait_for_done). */
enum { NOTIFIED_BY_SEND = 1, NOTIFIED_BY_IMM, NOTIFIED_BY_DOORBELL };

void die(const char *what)
{
    perror(what);
    exit(1);
}

void die_msg(const char *msg)
{
    fprintf(stderr, "%s\n", msg);
    exit(1);
}

/* rdma_* return -1 and set errno; ibv_post_*, ibv_modify_qp and
 * posix_memalign return the errno itself. */
void check(int rc, const char *what)
{
    if (rc) {
        if (rc > 0)
            errno = rc;
        die(what);
    }
}

/* Waits for the next CM event and dies unless it is the one expected. */
void get_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev, enum rdma_cm_event_type want)
{
    if (rdma_get_cm_event(ch, ev))
        die("rdma_get_cm_event");
    if ((*ev)->event != want) {
        fprintf(stderr, "got %s (status %d), expected %s\n",
                rdma_event_str((*ev)->event), (*ev)->status, rdma_event_str(want));
        exit(1);
    }
}

/* The server hangs up second. Its RECV completion can come before its
 * NIC has sent the SEND's ACK, and rdma_disconnect moves the QP to ERR: on
 * rxe the ACK is then never sent and the client's SEND fails with
 * "transport retry counter exceeded". The client hangs up once its SEND
 * is acknowledged, so this waits up to ms for that DISCONNECTED event;
 * rdma_disconnect then answers it. */
void wait_for_hangup(struct rdma_event_channel *ch, int ms)
{
    struct pollfd p = { .fd = ch->fd, .events = POLLIN };
    struct rdma_cm_event *ev;
    if (poll(&p, 1, ms) == 1 && !rdma_get_cm_event(ch, &ev)) {
        if (ev->event != RDMA_CM_EVENT_DISCONNECTED)
            fprintf(stderr, "while waiting for the client to hang up: got %s\n", rdma_event_str(ev->event));
        rdma_ack_cm_event(ev);
    }
}

/* The seed's poll_one: polls until one completion comes, dies on error. */
void poll_one(struct ibv_cq *q, struct ibv_wc *w, enum ibv_wc_opcode want, const char *what)
{
    int n;
    while ((n = ibv_poll_cq(q, 1, w)) == 0)
        ;
    if (n < 0)
        die("ibv_poll_cq");
    if (w->status != IBV_WC_SUCCESS) {
        fprintf(stderr, "%s failed: status=%s\n", what, ibv_wc_status_str(w->status));
        exit(1);
    }
    if (w->opcode != want) {
        fprintf(stderr, "%s: unexpected completion opcode %d\n", what, w->opcode);
        exit(1);
    }
}

/* The seed's wait_for_done: a receive completion (SEND or WRITE_WITH_IMM)
 * or the doorbell flag, whichever comes first. */
int wait_for_done(void)
{
    volatile uint64_t *flag = doorbell;
    for (;;) {
        int n = ibv_poll_cq(cq, 1, &wc);
        if (n < 0)
            die("ibv_poll_cq");
        if (n > 0) {
            if (wc.status != IBV_WC_SUCCESS) {
                fprintf(stderr, "recv done message failed: status=%s\n", ibv_wc_status_str(wc.status));
                exit(1);
            }
            return wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM ? NOTIFIED_BY_IMM : NOTIFIED_BY_SEND;
        }
        if (be64toh(*flag) == DOORBELL_VALUE) {
            __sync_synchronize();
            return NOTIFIED_BY_DOORBELL;
        }
    }
}

/* Bytes from the peer are printed escaped: it does not get the terminal. */
void print_escaped(const char *label, const char *s, size_t max)
{
    fputs(label, stdout);
    for (size_t i = 0; i < max && s[i]; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\\')
            fputs("\\\\", stdout);
        else if (ch >= 0x20 && ch < 0x7f)
            putchar(ch);
        else
            printf("\\x%02x", ch);
    }
    putchar('\n');
}

void report_done(int how)
{
    if (how == NOTIFIED_BY_SEND)
        print_escaped("[server] received SEND: ", recv_buf, 128);
    else if (how == NOTIFIED_BY_IMM)
        printf("[server] received imm_data 0x%" PRIx32 "\n", ntohl(wc.imm_data));
    else
        printf("[server] received doorbell value: %" PRIu64 "\n", be64toh(*doorbell));
    print_escaped("[server] RDMA-written buffer: ", buf, BUF_SIZE);
}

/* The ud tour: polls for a UD SEND's completion. The client has a RECV
 * posted for the server's answer, which may complete first: it is kept
 * in answer_wc for await_reply. */
void poll_ud_send(struct ibv_cq *q, struct ibv_wc *w, const char *what)
{
    for (;;) {
        int n = ibv_poll_cq(q, 1, w);
        if (n < 0)
            die("ibv_poll_cq");
        if (n == 0)
            continue;
        if (w->status != IBV_WC_SUCCESS) {
            fprintf(stderr, "%s failed: status=%s\n", what, ibv_wc_status_str(w->status));
            exit(1);
        }
        if (w->opcode == IBV_WC_SEND)
            return;
        if (w->opcode == IBV_WC_RECV) {
            answer_wc = *w;
            answered = 1;
        }
    }
}

/* The ud tour's client: waits for the server's answer to the message in
 * send_buf, sending the message again whenever none came within ms (UD
 * has no ACK and never retries: the application does). The RECV for the
 * answer is already posted. Returns how many times it sent again. */
int await_reply(uint64_t wr_id, int ms)
{
    struct ibv_sge sge = { .addr = (uintptr_t)send_buf, .length = strlen(send_buf) + 1, .lkey = send_mr->lkey };
    struct ibv_send_wr again = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                                 .send_flags = IBV_SEND_SIGNALED,
                                 .wr.ud = { .ah = ah, .remote_qpn = remote_qpn, .remote_qkey = remote_qkey } };
    int sent_again = 0;
    if (answered) /* it came while poll_ud_send waited for a SEND */
        return 0;
    for (;;) {
        struct timespec start, now;
        long waited;
        clock_gettime(CLOCK_MONOTONIC, &start);
        do {
            int n = ibv_poll_cq(cq, 1, &wc);
            if (n < 0)
                die("ibv_poll_cq");
            if (n > 0 && wc.status != IBV_WC_SUCCESS) {
                fprintf(stderr, "UD SEND or the answer's RECV failed: status=%s\n", ibv_wc_status_str(wc.status));
                exit(1);
            }
            if (n > 0 && wc.opcode == IBV_WC_RECV) {
                answer_wc = wc;
                answered = 1;
                return sent_again;
            }
            clock_gettime(CLOCK_MONOTONIC, &now);
            waited = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        } while (waited < ms);
        check(ibv_post_send(qp, &again, &bad_send), "ibv_post_send (sent again)");
        sent_again++;
    }
}

struct addrinfo *resolve(const char *host, const char *svc, int passive)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    int ret = getaddrinfo(host, svc, &hints, &res);
    if (ret) {
        fprintf(stderr, "getaddrinfo %s: %s\n", host ? host : "(any)", gai_strerror(ret));
        exit(1);
    }
    return res;
}
`

// cArgs parses the seed's command line for role; notify is the mode the
// program was exported with (the only one it runs).
func cArgs(role steps.Role, notify steps.Notify) string {
	if role == steps.Server {
		return fmt.Sprintf(`    if (argc < 2 || strcmp(argv[1], "server") || argc > 3) {
        fprintf(stderr, "usage: %%s server [PORT]\n", argv[0]);
        return 2;
    }
    port = argc > 2 ? argv[2] : "%d";
    addr = resolve(NULL, port, 1);
`, steps.DefaultPort)
	}
	return fmt.Sprintf(`    const char *mode = "%[1]s";
    if (argc < 3 || strcmp(argv[1], "client") || argc > 6) {
        fprintf(stderr, "usage: %%s client SERVER_IP [PORT] [SRC_IP] [%[1]s]\n", argv[0]);
        return 2;
    }
    port = argc > 3 ? argv[3] : "%[2]d";
    /* As the seed: the fourth argument is SRC_IP unless it is a notify mode. */
    if (argc > 4 && strcmp(argv[4], "send") && strcmp(argv[4], "doorbell") && strcmp(argv[4], "imm"))
        src = resolve(argv[4], "0", 0);
    if (argc > 4 && !src)
        mode = argv[4];
    if (argc > 5)
        mode = argv[5];
    if (strcmp(mode, "%[1]s")) {
        fprintf(stderr, "this program was exported with --notify %[1]s; run `+"`rdmatour export-c client --notify %%s`"+` for %%s\n", mode, mode);
        return 2;
    }
    dst = resolve(argv[2], port, 0);
`, notify, steps.DefaultPort)
}

// programC is the whole program around body, the steps' statements.
func programC(cfg steps.Config, body string) string {
	var b strings.Builder
	name := FileName(cfg.Role)
	args := cfg.Role.String()
	if cfg.Tour != steps.TourWrite && cfg.Lesson == nil { // a lesson names its own tour
		args += " --tour " + cfg.Tour.String()
	}
	if cfg.Role == steps.Client {
		args += " --notify " + cfg.Notify.String()
	}
	if cfg.Track != steps.TrackCM {
		args += " --track " + cfg.Track.String()
	}
	if cfg.Lesson != nil {
		args += " --lesson " + cfg.Lesson.Name
	}
	fmt.Fprintf(&b, "/*\n * %s.c: the rdmatour tour, %s side, as one C program.\n", name, cfg.Role)
	fmt.Fprintf(&b, " * Written by `rdmatour export-c %s`.\n *\n", args)
	fmt.Fprintf(&b, " * Build: gcc -std=c99 -Wall -Werror -o %s %s.c -libverbs -lrdmacm\n", name, name)
	if cfg.Role == steps.Server {
		fmt.Fprintf(&b, " * Run:   ./%s server [PORT]\n", name)
	} else {
		fmt.Fprintf(&b, " * Run:   ./%s client SERVER_IP [PORT] [SRC_IP] [%s]\n", name, cfg.Notify)
	}
	b.WriteString(headerNotes(cfg))
	if cfg.Lesson != nil {
		b.WriteString(" *\n * This is a lesson: it makes the lesson's mistake on purpose, and\n * stops with the error the lesson is about.\n")
	}
	b.WriteString(" */\n")
	b.WriteString(Prelude())
	b.WriteString("\nint main(int argc, char **argv)\n{\n")
	b.WriteString(cArgs(cfg.Role, cfg.Notify))
	b.WriteString(body)
	b.WriteString("\n    freeaddrinfo(" + map[steps.Role]string{steps.Server: "addr", steps.Client: "dst"}[cfg.Role] + ");\n")
	if cfg.Role == steps.Client {
		b.WriteString("    if (src)\n        freeaddrinfo(src);\n")
	}
	b.WriteString("    return 0;\n}\n")
	return b.String()
}
