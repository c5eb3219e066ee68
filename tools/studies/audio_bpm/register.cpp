// `harmonic study audio-bpm`: the Fourier head paper's audio tempo toy registered with the
// study driver (tools/studies/driver/driver.h): the grid of plan.h, one run of run.h per point, the
// report and figures of report.h and figures.h.
#include <fmt/format.h>

#include "harmonic/tools/studies/audio_bpm/plan.h"
#include "harmonic/tools/studies/audio_bpm/report.h"
#include "harmonic/tools/studies/audio_bpm/run.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {
namespace {

constexpr const char* kAudioBpmStudy = kBpmStudy;

BpmStudyPlan audio_bpm_plan_of(const StudyContext& c) {
  BpmStudyPlan plan{.common = c.common()};
  const Json& o = c.options;
  plan.frequencies = o.at("frequencies").get<std::vector<int64_t>>();
  plan.task = c.task_keys("task", kAudioBpmStudy);
  return plan;
}

StudySpec audio_bpm_study() {
  StudySpec s;
  s.name = "audio-bpm";
  s.description =
      "Fourier head (Gillman et al. 2025, Appendix C.1, Figure 7): tempo of generated metronome clips (50..210 BPM "
      "in 32 bins of 5) by a spectrogram transformer, linear vs Fourier heads with 1 and 2 frequencies";
  s.modes =
      "quick: seeds 1-3, 8000 clips, a 2-layer d 64 model for 800 steps of batch 32: 9 runs, about 5 min on 2 cores; "
      "full: seeds 1-5, 32000 clips, 4 layers of d 128 for 6000 steps of batch 64: 15 runs (hours on 2 cores); "
      "--set paper_scale=true: AST's shape (12 layers, d 768, 12 heads) on 16 kHz clips with 128 bands, 20000 steps "
      "of batch 64 (with --set device=cuda on a GPU)";
  // frequencies: the Fourier heads ([]: 1 and 2); task: audio-bpm keys merged into every run
  // (--set 'task={"trainer":{"steps":100}}').
  s.options = {{"frequencies", Json::array()}, {"task", Json::object()}};
  s.smoke = {{"task", {{"train_clips", 64}, {"test_clips", 32}, {"seconds", 2.0}, {"dim", 32}, {"depth", 1}, {"batch_size", 16}, {"trainer", {{"steps", 3}, {"log_every", 1}, {"eval_every", 2}, {"warmup_steps", 1}}}}}};
  s.grid = [](const StudyContext& c) {
    return study_runs(bpm_study_grid(audio_bpm_plan_of(c)), bpm_run_label, head_run_json, bpm_run_cost);
  };
  s.run = [](const StudyRun& run) { return run_audio_bpm(head_run_from_json(run.config, kBpmStudy), run.work_dir); };
  s.describe = [](const RunRecord& r) {
    const Json& f = r.result.at("final");
    auto num = [&](const char* k) { return f.is_object() && f.contains(k) ? f.at(k).get<double>() : NAN; };
    return fmt::format(" accuracy {:.3f} macro F1 {:.3f} smoothness {:.4f}", num("accuracy"), num("macro_f1"),
                       num("smoothness"));
  };
  s.report = [](const ReportInput& in) { return write_bpm_study(in.dir, bpm_runs_of(in.records), in.info); };
  return s;
}

const StudyRegistration audio_bpm_registration{audio_bpm_study()};

}  // namespace
}  // namespace hm::studies
