#ifndef SWEEP_CMICROHTTPD_SHIM_H
#define SWEEP_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// The content reader's end markers are macros with casts, which Swift does not import.
static const ssize_t sweep_mhd_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t sweep_mhd_end_with_error = MHD_CONTENT_READER_END_WITH_ERROR;

// MHD_get_connection_info is variadic, which Swift cannot call: the connection's socket.
static inline int sweep_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}
#endif
