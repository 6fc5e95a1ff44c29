#ifndef SWEEP_CPANGOCAIRO_SHIM_H
#define SWEEP_CPANGOCAIRO_SHIM_H
#include <cairo.h>
#include <pango/pangocairo.h>

/// PANGO_SCALE is a macro: Pango units per device unit.
static const int sweep_pango_scale = PANGO_SCALE;
#endif
