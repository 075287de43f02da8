//go:build linux

package buildcheck

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The same calls compiled twice: against rdma-core's headers (real_) and
// against abi.h (ours_). Separate files, as the names clash.
const helperCalls = `
void *PREFIX_port_ctx(struct ibv_context *c) { return verbs_get_ctx_op(c, query_port); }
int PREFIX_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad) { return ibv_post_send(qp, wr, bad); }
int PREFIX_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad) { return ibv_post_recv(qp, wr, bad); }
int PREFIX_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc) { return ibv_poll_cq(cq, n, wc); }
`

// helperDriver builds a fake provider context (laid out by abi.h, whose
// layout TestABIMatchesRdmaCoreHeaders checks) and calls both versions of
// each helper: the same result, and the same arguments reaching the
// provider, or it exits 1.
const helperDriver = `#include "ABI_H"
#include <stdio.h>
#include <stdlib.h>

#define DECLARE(p) \
	void *p##_port_ctx(struct ibv_context *c); \
	int p##_post_send(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **); \
	int p##_post_recv(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **); \
	int p##_poll_cq(struct ibv_cq *, int, struct ibv_wc *);
DECLARE(real)
DECLARE(ours)

static const void *seen[3];
static int record(int ret, const void *a, const void *b, const void *c)
{
	seen[0] = a, seen[1] = b, seen[2] = c;
	return ret;
}
static int fake_send(struct ibv_qp *q, struct ibv_send_wr *w, struct ibv_send_wr **b) { return record(11, q, w, b); }
static int fake_recv(struct ibv_qp *q, struct ibv_recv_wr *w, struct ibv_recv_wr **b) { return record(22, q, w, b); }
static int fake_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc) { return record(33 + n, cq, wc, 0); }
static int fake_query_port(struct ibv_context *c, uint8_t p, struct ibv_port_attr *a, size_t n) { return 0; }

static int failed;
static void same(const char *what, long real, long ours, const void **real_seen)
{
	int args = real_seen[0] == seen[0] && real_seen[1] == seen[1] && real_seen[2] == seen[2];
	printf("%s: rdma-core %ld, abi.h %ld%s\n", what, real, ours, args ? "" : " (different arguments reached the provider)");
	if (real != ours || !args)
		failed = 1;
}

int main(void)
{
	struct verbs_context *v = calloc(1, sizeof(*v));
	struct ibv_context *c = &v->context;
	struct ibv_qp qp = { .context = c };
	struct ibv_cq cq = { .context = c };
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_wc wc[2];
	const void *real_seen[3];
	size_t need = sizeof(*v) - offsetof(struct verbs_context, query_port);
	struct { const char *name; void *compat; size_t sz; int has_op; } cases[] = {
		{ "plain ibv_context", NULL, sizeof(*v), 1 },
		{ "extended, full size", (void *)UINTPTR_MAX, sizeof(*v), 1 },
		{ "extended, just big enough", (void *)UINTPTR_MAX, need, 1 },
		{ "extended, one byte short", (void *)UINTPTR_MAX, need - 1, 1 },
		{ "extended, op not set", (void *)UINTPTR_MAX, sizeof(*v), 0 },
	};
	long real, ours;

	c->ops.post_send = fake_send;
	c->ops.post_recv = fake_recv;
	c->ops.poll_cq = fake_poll;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char what[96];
		c->abi_compat = cases[i].compat;
		v->sz = cases[i].sz;
		v->query_port = cases[i].has_op ? fake_query_port : NULL;
		real = real_port_ctx(c) != NULL;
		ours = ours_port_ctx(c) != NULL;
		snprintf(what, sizeof(what), "verbs_get_ctx_op(query_port), %s: found", cases[i].name);
		seen[0] = seen[1] = seen[2] = NULL;
		same(what, real, ours, seen);
	}
#define CALL(what, expr_real, expr_ours) \
	real = expr_real; \
	for (int k = 0; k < 3; k++) real_seen[k] = seen[k]; \
	seen[0] = seen[1] = seen[2] = NULL; \
	ours = expr_ours; \
	same(what, real, ours, real_seen);
	CALL("ibv_post_send", real_post_send(&qp, &swr, &sbad), ours_post_send(&qp, &swr, &sbad));
	CALL("ibv_post_recv", real_post_recv(&qp, &rwr, &rbad), ours_post_recv(&qp, &rwr, &rbad));
	CALL("ibv_poll_cq", real_poll_cq(&cq, 2, wc), ours_poll_cq(&cq, 2, wc));
	free(v);
	return failed;
}
`

// TestABIHelpersMatchRdmaCore runs the inline helpers abi.h copies from
// verbs.h (verbs_get_ctx_op, ibv_post_send, ibv_post_recv, ibv_poll_cq)
// next to rdma-core's own on a fake provider context.
func TestABIHelpersMatchRdmaCore(t *testing.T) {
	cc := cCompiler(t)
	dir := t.TempDir()
	header, err := filepath.Abs(filepath.Join("..", "abi.h"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"real.c":   "#include <infiniband/verbs.h>\n" + strings.ReplaceAll(helperCalls, "PREFIX", "real"),
		"ours.c":   "#include \"" + header + "\"\n" + strings.ReplaceAll(helperCalls, "PREFIX", "ours"),
		"driver.c": strings.ReplaceAll(helperDriver, "ABI_H", header),
	}
	args := []string{"-O2", "-Wall", "-Werror", "-Wno-unused-parameter", "-o", filepath.Join(dir, "helpers")}
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	out, err := exec.Command(cc, args...).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "infiniband/verbs.h: No such file") {
			t.Skip("the rdma-core headers are not installed (apt-get install libibverbs-dev)")
		}
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	out, err = exec.Command(filepath.Join(dir, "helpers")).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("abi.h's helpers differ from rdma-core's:\n%s", out)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(out), "\n"); got != 8 {
		t.Fatalf("%d results, want 8:\n%s", got, out)
	}
	t.Logf("\n%s", out)
}
