#ifndef SWEEP_CSYSTEM_SHIM_H
#define SWEEP_CSYSTEM_SHIM_H
// System calls glibc 2.36 has no wrapper for, which Swift cannot reach through the variadic
// syscall(2): each is wrapped here in one function.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Opens `path` relative to the folder `dirfd` without ever leaving it: no `..` above it, no
/// absolute path, no symbolic link (nor /proc magic link) that resolves outside (openat2 with
/// RESOLVE_BENEATH). -1 with errno EXDEV when the path would leave, ENOSYS before Linux 5.6.
static inline int sweep_open_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
#ifdef SYS_openat2
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (unsigned long long)flags;
    how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#endif
