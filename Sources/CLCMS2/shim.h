#ifndef SWEEP_CLCMS2_SHIM_H
#define SWEEP_CLCMS2_SHIM_H
#include <lcms2.h>

// TYPE_* pixel-format constants are macros built from bit fields; Swift cannot import them.
static const cmsUInt32Number sweep_type_rgba_8 = TYPE_RGBA_8;
static const cmsUInt32Number sweep_type_gray_8 = TYPE_GRAY_8;
static const cmsUInt32Number sweep_type_cmyk_8 = TYPE_CMYK_8;
static const cmsUInt32Number sweep_flags_copy_alpha = cmsFLAGS_COPY_ALPHA;
#endif
