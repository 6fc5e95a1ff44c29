#ifndef SWEEP_CHEIF_SHIM_H
#define SWEEP_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
