// The RNG-LM study's grid (Fourier head paper 4.2 / C.4): per seed, (a) the pretrained base
// model sampling the numbers, (b) LoRA with the token head, (c) LoRA with a Fourier head, at
// the paper's schedule (16 epochs) and, clearly labelled, a longer one (the paper's 64 steps
// are few for a model pretrained from scratch in minutes). The character-level base model is
// pretrained once per study (the kjv-lm task; see run.h for how parallel runs share it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

struct RngStudyPlan {
  // seeds: empty: 1 2 (quick) or 1..10 (full). paper_scale: a GPT-2-small-sized base model (12
  // layers, d 768, 85 M parameters) pretrained 50k steps of batch 64, the closest this study gets
  // to the paper's 8B LLM; the full mode's seeds, samples and epochs. device: in the config only
  // when not cpu.
  StudyCommon common;
  int64_t samples = 0;          // per distribution; 0: 100 (quick) or 200 (full)
  int64_t long_epochs = -1;     // the longer-training rows; -1: 48 (quick) or 128 (full); 0: none
  Json pretrain = Json::object();  // kjv-lm keys over the mode's
  Json finetune = Json::object();  // rng-lm keys over the defaults (every fine-tuning run)
};

// The kjv-lm config of the base model: char tokenizer with references, the mode's size.
Json rng_pretrain_config(const RngStudyPlan& plan);
std::vector<StudyRun> rng_study_grid(const RngStudyPlan& plan);

// The models a run may be: "base", "token", "fourier", "token-long", "fourier-long".
inline const std::vector<std::string>& rng_models() {
  static const std::vector<std::string> m = {"base", "token", "fourier", "token-long", "fourier-long"};
  return m;
}

}  // namespace hm::studies
