// Everything a Harmonic user needs: #include "core/harmonic.h".
#pragma once
#include "autograd/gradcheck.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/factories.h"
#include "core/parallel.h"
#include "core/print.h"
#include "core/random.h"
#include "core/tensor.h"
#include "cuda/runtime/runtime.h"
#include "ops/ops.h"
