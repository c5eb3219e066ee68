// The neural-network functions: softmax family, losses, normalisations, embedding, dropout,
// the categorical draw of decoding.
#pragma once
#include "harmonic/ops/cross_entropy.h"
#include "harmonic/ops/draw_categorical.h"
#include "harmonic/ops/dropout.h"
#include "harmonic/ops/embedding.h"
#include "harmonic/ops/mse_loss.h"
#include "harmonic/ops/normalization.h"
#include "harmonic/ops/softmax.h"
