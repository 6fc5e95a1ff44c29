#ifndef SWEEP_CWORKER_SHIM_H
#define SWEEP_CWORKER_SHIM_H
// The decode worker's plumbing: libseccomp's system-call filter and file descriptors passed
// over a socket. Their macros (SCMP_A2, SCMP_SYS, CMSG_*) do not import into Swift, so
// each is wrapped here in one function.
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/memfd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

enum { SWEEP_MAX_PASSED_FDS = 4 };

/// An anonymous shared-memory file, closed on exec (the worker's frame channel).
static inline int sweep_memfd(const char *name) { return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC); }

#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_SHRINK 0x0002
#endif

/// A shared-memory file that can be sealed (``sweep_seal_shrink``), closed on exec.
static inline int sweep_memfd_sealable(const char *name) {
    return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

/// Seals `fd` against shrinking: a process it is shared with cannot cut it under a mapping
/// (a read past the end would raise SIGBUS in the reader). Returns 0, or -1 with errno.
static inline int sweep_seal_shrink(int fd) { return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK); }

/// Closes every descriptor from `low` up; returns -1 where the kernel lacks close_range (< 5.9).
static inline int sweep_close_from(unsigned int low) { return (int)syscall(SYS_close_range, low, ~0U, 0); }

/// A descriptor that becomes readable when process `pid` ends; -1 before Linux 5.3.
static inline int sweep_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/// Unblocks every signal: a parent may hand down a mask that blocks SIGALRM or SIGCHLD.
static inline void sweep_unblock_signals(void) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/// Asks for SIGKILL when the parent process ends, so no worker outlives sweep.
static inline int sweep_die_with_parent(void) { return prctl(PR_SET_PDEATHSIG, SIGKILL); }

/// Sends `len` bytes with `nfds` descriptors (SCM_RIGHTS); never raises SIGPIPE.
static inline ssize_t sweep_send_with_fds(int sock, const void *buf, size_t len, const int *fds, int nfds) {
    if (nfds < 0 || nfds > SWEEP_MAX_PASSED_FDS) return -1;
    char control[CMSG_SPACE(sizeof(int) * SWEEP_MAX_PASSED_FDS)];
    memset(control, 0, sizeof control);
    struct iovec iov = {(void *)buf, len};
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (nfds > 0) {
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
    }
    return sendmsg(sock, &msg, MSG_NOSIGNAL);
}

/// Receives one message and up to SWEEP_MAX_PASSED_FDS descriptors (close-on-exec);
/// `*nfds` says how many came.
static inline ssize_t sweep_recv_with_fds(int sock, void *buf, size_t len, int *fds, int *nfds) {
    char control[CMSG_SPACE(sizeof(int) * SWEEP_MAX_PASSED_FDS)];
    struct iovec iov = {buf, len};
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    *nfds = 0;
    ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0) return n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + sizeof(int) * i, sizeof fd);
            if (*nfds < SWEEP_MAX_PASSED_FDS) fds[(*nfds)++] = fd; else close(fd);
        }
    }
    return n;
}

/// Denies, with EPERM, what a decoder never needs: opening a file for writing, creating,
/// renaming or removing files, running programs, sockets and tracing other processes.
/// Returns 0 when the filter is loaded, a negative errno otherwise (a kernel without seccomp).
static inline int sweep_seccomp_lockdown(void) {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL) return -ENOMEM;
    int rc = 0;
    const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
    const int writeFlags[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND};
    for (unsigned i = 0; i < sizeof writeFlags / sizeof writeFlags[0] && rc == 0; i++) {
        const scmp_datum_t f = (scmp_datum_t)writeFlags[i];
        rc = seccomp_rule_add(ctx, deny, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, f, f));
        if (rc == 0) rc = seccomp_rule_add(ctx, deny, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, f, f));
    }
    // openat2 keeps its flags in a struct a filter cannot read: refused whole (glibc's open
    // does not use it).
    const int calls[] = {
        SCMP_SYS(openat2), SCMP_SYS(creat), SCMP_SYS(execve), SCMP_SYS(execveat),
        SCMP_SYS(socket), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(ptrace),
        SCMP_SYS(process_vm_writev), SCMP_SYS(process_vm_readv),
        SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rmdir),
        SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2), SCMP_SYS(link), SCMP_SYS(linkat),
        SCMP_SYS(symlink), SCMP_SYS(symlinkat), SCMP_SYS(truncate), SCMP_SYS(chmod), SCMP_SYS(fchmodat),
        SCMP_SYS(chown), SCMP_SYS(fchownat), SCMP_SYS(lchown), SCMP_SYS(mknod), SCMP_SYS(mknodat),
    };
    for (unsigned i = 0; i < sizeof calls / sizeof calls[0] && rc == 0; i++) {
        rc = seccomp_rule_add(ctx, deny, calls[i], 0);
    }
    // Signals only to itself (raise and abort send them so): a worker must not kill sweep, its
    // monitor, or any other process of the user's (kill(-1, SIGKILL)).
    const scmp_datum_t self = (scmp_datum_t)getpid();
    if (rc == 0) rc = seccomp_rule_add(ctx, deny, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, self));
    if (rc == 0) rc = seccomp_rule_add(ctx, deny, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_NE, self));
    if (rc == 0) rc = seccomp_rule_add(ctx, deny, SCMP_SYS(tkill), 0);
    if (rc == 0) rc = seccomp_rule_add(ctx, deny, SCMP_SYS(pidfd_send_signal), 0);
    if (rc == 0) rc = seccomp_rule_add(ctx, deny, SCMP_SYS(rt_sigqueueinfo), 1, SCMP_A0(SCMP_CMP_NE, self));
    if (rc == 0) rc = seccomp_rule_add(ctx, deny, SCMP_SYS(rt_tgsigqueueinfo), 1, SCMP_A0(SCMP_CMP_NE, self));
    if (rc == 0) rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc;
}
#endif
