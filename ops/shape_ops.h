// The shape ops: views (ops/shape_views.h) and copies (ops/shape_copies.h).
#pragma once
#include "ops/shape_copies.h"
#include "ops/shape_views.h"
