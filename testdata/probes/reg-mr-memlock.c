// Probe: ibv_reg_mr under RLIMIT_MEMLOCK. Registers one MR of SIZE bytes
// (page aligned) on the first device and prints the result and errno.
//   reg-mr-memlock [SIZE]   (default 4096); run e.g. as non-root:
//   setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'ulimit -l 64; ./reg-mr-memlock 4096'
// Build: gcc -O2 -o reg-mr-memlock reg-mr-memlock.c -libverbs
// Measured as uid 65534 (Debian 6.1.0-56 guest, rxe0):
//   ulimit -l 64: 4096 ok, 65536 ok (limit is inclusive), 1048576 -> NULL errno=12 ENOMEM
//   ulimit -l 0 : any size -> NULL errno=1 EPERM (+ libibverbs RLIMIT_MEMLOCK warning)
//   root (CAP_IPC_LOCK) with ulimit -l 64: 1048576 ok.
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    size_t size = argc > 1 ? strtoul(argv[1], NULL, 0) : 4096;
    struct rlimit rl;
    getrlimit(RLIMIT_MEMLOCK, &rl);
    printf("uid=%d RLIMIT_MEMLOCK=%llu size=%zu\n", (int)getuid(),
           (unsigned long long)rl.rlim_cur, size);
    struct ibv_device **l = ibv_get_device_list(NULL);
    if (!l || !l[0]) { perror("ibv_get_device_list"); return 1; }
    struct ibv_context *ctx = ibv_open_device(l[0]);
    if (!ctx) { perror("ibv_open_device"); return 1; }
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    if (!pd) { perror("ibv_alloc_pd"); return 1; }
    void *buf;
    if (posix_memalign(&buf, 4096, size)) return 1;
    memset(buf, 0, size);
    errno = 0;
    struct ibv_mr *mr = ibv_reg_mr(pd, buf, size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (mr) printf("ibv_reg_mr ok lkey=0x%x rkey=0x%x\n", mr->lkey, mr->rkey);
    else printf("ibv_reg_mr = NULL errno=%d (%s)\n", errno, strerror(errno));
    return 0;
}
