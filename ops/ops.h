// Every operator family.
#pragma once
#include "ops/elementwise.h"
#include "ops/indexing.h"
#include "ops/matmul.h"
#include "ops/nn_functional.h"
#include "ops/reduce.h"
#include "ops/shape_ops.h"
