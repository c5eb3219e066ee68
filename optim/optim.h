// Everything of the training stack's optimisation side: #include <harmonic/optim/optim.h>.
#pragma once
#include "harmonic/optim/adam.h"
#include "harmonic/optim/clip.h"
#include "harmonic/optim/optimizer.h"
#include "harmonic/optim/schedule.h"
#include "harmonic/optim/sgd.h"
