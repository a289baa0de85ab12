#include "experiments/training_phases.h"

#include <stdexcept>

#include <fmt/format.h>

#include "loaders/dataset_spec.h"

namespace jetchar::experiments {

namespace {

// The data set text with option `key` set to `value` (added, or replacing the one given).
std::string with_option(const std::string& text, const std::string& key, const std::string& value) {
  auto spec = loaders::DatasetSpec::parse(text);
  spec.options[key] = value;
  const auto colon = text.find(':');
  const auto question = text.find('?', colon);
  std::string result = text.substr(0, question);
  char separator = '?';
  for (const auto& [k, v] : spec.options) {
    result += fmt::format("{}{}={}", separator, k, v);
    separator = '&';
  }
  return result;
}

[[noreturn]] void refuse(const std::string& what) { throw std::invalid_argument("workload.phases: " + what); }

}  // namespace

void check_phases(const proto::ExperimentSpec& resolved) {
  const auto& w = resolved.workload();
  if (w.phases().empty()) return;
  if (w.task() == proto::INFER) refuse("phases are for training; this workload infers");
  if (const auto kind = loaders::DatasetSpec::parse(w.dataset()).kind; kind != "corpus") {
    refuse(
        fmt::format("phases pretrain on a text corpus (corpus:FILE); data set '{}' is of kind {}", w.dataset(), kind));
  }
  if (resolved.adaptive().enabled()) refuse("phases run their steps; adaptive stopping would cut them");
  if (w.has_target_f1()) refuse("a target F1 is a fine-tuning measure, not a pretraining one");
  if (resolved.measurement().power_samples()) {
    refuse("measurement.power_samples keeps one run's samples on one time base; phases are timed apart");
  }
  for (int i = 0; i < w.phases_size(); ++i) {
    const auto& phase = w.phases(i);
    if (phase.sequence_length() < 8) {
      refuse(fmt::format("phase {}: sequence_length {} is not valid; valid: 8 or more tokens", i + 1,
                         phase.sequence_length()));
    }
    if (phase.steps() == 0) refuse(fmt::format("phase {}: steps is 0; valid: 1 or more optimizer steps", i + 1));
    if (phase.has_learning_rate() && !(phase.learning_rate() > 0)) {
      refuse(fmt::format("phase {}: learning_rate {} is not valid; valid: a number above 0", i + 1,
                         phase.learning_rate()));
    }
    if (phase.has_warmup_proportion() && !(phase.warmup_proportion() >= 0 && phase.warmup_proportion() < 1)) {
      refuse(fmt::format("phase {}: warmup_proportion {} is not valid; valid: from 0 up to (not including) 1", i + 1,
                         phase.warmup_proportion()));
    }
  }
}

std::vector<proto::ExperimentSpec> phase_specs(const proto::ExperimentSpec& resolved) {
  const auto& w = resolved.workload();
  if (w.phases().empty()) return {resolved};
  std::vector<proto::ExperimentSpec> specs;
  for (const auto& phase : w.phases()) {
    auto spec = resolved;
    auto* p = spec.mutable_workload();
    p->clear_phases();
    p->clear_max_minibatches();
    p->set_dataset(with_option(w.dataset(), "max_length", std::to_string(phase.sequence_length())));
    p->set_sequence_length(phase.sequence_length());
    if (phase.batch_size() > 0) p->set_batch_size(phase.batch_size());
    if (phase.accumulate() > 0) p->set_accumulate(phase.accumulate());
    if (phase.has_learning_rate()) p->set_learning_rate(phase.learning_rate());
    if (phase.has_warmup_proportion()) p->set_warmup_proportion(phase.warmup_proportion());
    specs.push_back(std::move(spec));
  }
  return specs;
}

TrainingWorkload open_phase_workload(const proto::ExperimentSpec& resolved,
                                     const std::vector<proto::ExperimentSpec>& specs, std::size_t phase,
                                     std::int64_t shard_index, std::int64_t shard_count,
                                     const TrainingWorkload* before) {
  auto workload = open_training_workload(specs.at(phase), shard_index, shard_count, before);
  if (resolved.workload().phases().empty()) return workload;
  const auto steps = static_cast<std::int64_t>(resolved.workload().phases(static_cast<int>(phase)).steps());
  auto& config = workload.config;
  config.max_steps = steps;
  config.epochs = epochs_for_steps(steps, config.accumulate, workload.pipeline->batches_per_epoch());
  config.keep_step_losses = true;
  return workload;
}

std::int64_t epochs_for_steps(std::int64_t steps, std::int64_t accumulate, std::int64_t batches_per_epoch) {
  const std::int64_t steps_per_epoch = (batches_per_epoch + accumulate - 1) / accumulate;
  return (steps + steps_per_epoch - 1) / std::max<std::int64_t>(1, steps_per_epoch);
}

void append_phase(TrainingResult& run, TrainingResult phase_result, std::int64_t phase) {
  const auto offset = static_cast<std::int64_t>(run.epochs.size());
  for (auto& epoch : phase_result.epochs) {
    epoch.epoch += offset;
    epoch.phase = phase;
    run.epochs.push_back(std::move(epoch));
  }
  for (auto& minibatch : phase_result.minibatches) {
    minibatch.epoch += offset;
    run.minibatches.push_back(minibatch);
  }
  if (run.status == RunStatus::kOk && phase_result.status != RunStatus::kOk) {
    run.status = phase_result.status;
    run.error = fmt::format("phase {}: {}", phase, phase_result.error);
  }
  run.stopped_early = run.stopped_early || phase_result.stopped_early;
  auto higher = [](std::optional<std::uint64_t>& mine, const std::optional<std::uint64_t>& theirs) {
    if (theirs && (!mine || *theirs > *mine)) mine = theirs;
  };
  auto& memory = run.memory;
  higher(memory.peak_rss_kib, phase_result.memory.peak_rss_kib);
  higher(memory.process_peak_rss_kib, phase_result.memory.process_peak_rss_kib);
  higher(memory.cuda_peak_allocated_bytes, phase_result.memory.cuda_peak_allocated_bytes);
  higher(memory.cuda_peak_reserved_bytes, phase_result.memory.cuda_peak_reserved_bytes);
  if (phase_result.memory.min_mem_available_kib &&
      (!memory.min_mem_available_kib || *phase_result.memory.min_mem_available_kib < *memory.min_mem_available_kib)) {
    memory.min_mem_available_kib = phase_result.memory.min_mem_available_kib;
  }
}

proto::PhaseResult phase_result(const proto::RunResult& result, const TrainingResult& trained,
                                const proto::WorkloadSpec& phase_workload, std::int64_t phase) {
  proto::PhaseResult figures;
  figures.set_phase(static_cast<std::uint32_t>(phase));
  figures.set_sequence_length(phase_workload.sequence_length());
  figures.set_batch_size(phase_workload.batch_size());
  figures.set_accumulate(std::max<std::uint32_t>(1, phase_workload.accumulate()));
  figures.set_learning_rate(trained.learning_rate);
  std::int64_t steps = 0;
  for (const auto& epoch : trained.epochs) {
    steps += epoch.optimizer_steps;
    for (const double loss : epoch.step_losses) figures.add_step_loss(loss);
  }
  figures.set_steps(static_cast<std::uint32_t>(steps));
  double energy_j = 0;
  bool every_energy = true;
  const proto::EpochResult* last = nullptr;
  for (const auto& epoch : result.epochs()) {
    if (epoch.phase() != static_cast<std::uint32_t>(phase)) continue;
    figures.set_samples(figures.samples() + epoch.samples());
    figures.set_time_s(figures.time_s() + epoch.e2e_s());
    every_energy = every_energy && epoch.has_energy_j();
    energy_j += epoch.energy_j();
    last = &epoch;
  }
  if (figures.time_s() > 0) figures.set_sequences_per_s(static_cast<double>(figures.samples()) / figures.time_s());
  if (last != nullptr && last->has_loss()) figures.set_final_loss(last->loss());
  if (last != nullptr && every_energy) figures.set_energy_j(energy_j);
  return figures;
}

}  // namespace jetchar::experiments
