// Harmonic's whole public API in one include: tensors, autograd and the ops, the layers, the
// optimizers, the data sets and loaders, the paper models, and the trainer a task plugs into.
//
//   #include <harmonic/harmonic.h>          // or single headers: <harmonic/nn/linear.h>
//
// Installed as include/harmonic/harmonic.h (and include/harmonic/core/harmonic.h); the build
// tree offers the same paths under build/include (CMakeLists.txt, "include paths").
#pragma once
#include "harmonic/autograd/gradcheck.h"
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/denormals.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/parallel.h"
#include "harmonic/core/print.h"
#include "harmonic/core/random.h"
#include "harmonic/core/safetensors.h"
#include "harmonic/core/tensor.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/ops/ops.h"
// Layers and their metrics.
#include "harmonic/nn/activation.h"
#include "harmonic/nn/attention.h"
#include "harmonic/nn/classification_metrics.h"
#include "harmonic/nn/density_metrics.h"
#include "harmonic/nn/dropout.h"
#include "harmonic/nn/embedding.h"
#include "harmonic/nn/forecast_metrics.h"
#include "harmonic/nn/fourier_head.h"
#include "harmonic/nn/fru.h"
#include "harmonic/nn/init.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/lora.h"
#include "harmonic/nn/module.h"
#include "harmonic/nn/module_list.h"
#include "harmonic/nn/normalization.h"
#include "harmonic/nn/patch_embedding.h"
#include "harmonic/nn/recurrent.h"
#include "harmonic/nn/sequential.h"
#include "harmonic/nn/transformer.h"
// Optimizers, schedules, checkpoints.
#include "harmonic/optim/optim.h"
// Data.
#include "harmonic/data/csv.h"
#include "harmonic/data/dataset.h"
#include "harmonic/data/datasets.h"
#include "harmonic/data/dates.h"
#include "harmonic/data/loader.h"
#include "harmonic/data/split.h"
#include "harmonic/data/text.h"
// The paper models.
#include "harmonic/models/chronos.h"
#include "harmonic/models/decision_transformer.h"
#include "harmonic/models/fourier_toy.h"
#include "harmonic/models/gpt.h"
#include "harmonic/models/sampling.h"
#include "harmonic/models/spectrogram_transformer.h"
#include "harmonic/models/t5.h"
#include "harmonic/models/vit.h"
// Tasks and the trainer (`harmonic train`'s engine, for your own task: tools/train/README.md).
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/task.h"
#include "harmonic/tools/train/train_cli.h"
#include "harmonic/tools/train/trainer.h"
