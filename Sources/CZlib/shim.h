#ifndef SWEEP_CZLIB_SHIM_H
#define SWEEP_CZLIB_SHIM_H
#include <zlib.h>

// inflateInit is a macro over inflateInit_ with the library's version and struct size.
static inline int sweep_inflate_init(z_stream *s) { return inflateInit(s); }
#endif
