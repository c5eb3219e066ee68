// The elementwise ops: binary arithmetic, unary math, comparisons and selection.
#pragma once
#include "ops/binary.h"
#include "ops/compare_select.h"
#include "ops/unary.h"
