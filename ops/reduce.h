// The reductions: sum/mean, extrema, moments, norms and cumsum.
#pragma once
#include "harmonic/ops/cumsum.h"
#include "harmonic/ops/extrema.h"
#include "harmonic/ops/moments.h"
#include "harmonic/ops/norms.h"
#include "harmonic/ops/sum.h"
