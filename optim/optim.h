// Everything of the training stack's optimisation side: #include "optim/optim.h".
#pragma once
#include "optim/adam.h"
#include "optim/clip.h"
#include "optim/optimizer.h"
#include "optim/schedule.h"
#include "optim/sgd.h"
