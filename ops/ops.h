// Every operator family.
#pragma once
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/indexing.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/shape_ops.h"
