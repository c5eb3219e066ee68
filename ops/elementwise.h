// The elementwise ops: binary arithmetic, unary math, comparisons and selection.
#pragma once
#include "harmonic/ops/binary.h"
#include "harmonic/ops/compare_select.h"
#include "harmonic/ops/unary.h"
