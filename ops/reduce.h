// The reductions: sum/mean, extrema, moments, norms and cumsum.
#pragma once
#include "ops/cumsum.h"
#include "ops/extrema.h"
#include "ops/moments.h"
#include "ops/norms.h"
#include "ops/sum.h"
