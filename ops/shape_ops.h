// The shape ops: views (ops/shape_views.h) and copies (ops/shape_copies.h).
#pragma once
#include "harmonic/ops/shape_copies.h"
#include "harmonic/ops/shape_views.h"
