// The neural-network functions: softmax family, losses, normalisations, embedding, dropout.
#pragma once
#include "ops/cross_entropy.h"
#include "ops/dropout.h"
#include "ops/embedding.h"
#include "ops/mse_loss.h"
#include "ops/normalization.h"
#include "ops/softmax.h"
