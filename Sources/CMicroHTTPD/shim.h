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
#endif
