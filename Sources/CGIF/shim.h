#ifndef SWEEP_CGIF_SHIM_H
#define SWEEP_CGIF_SHIM_H
#include <gif_lib.h>

// GIF_OK/GIF_ERROR are plain ints; named here so Swift code reads clearly.
static const int sweep_gif_ok = GIF_OK;
#endif
