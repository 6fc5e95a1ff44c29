#ifndef SWEEP_CWEBP_SHIM_H
#define SWEEP_CWEBP_SHIM_H
// libwebp's animation decoder: animated WebP inputs, which FFmpeg 5.1 cannot decode.
#include <webp/decode.h>
#include <webp/demux.h>
#endif
