#include "experiments/frontier/training_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "experiments/compute_threads.h"
#include "experiments/frontier/address_space_budget.h"
#include "experiments/models/registry.h"
#include "experiments/run_settings.h"
#include "experiments/torch_device.h"
#include "experiments/training/out_of_memory.h"
#include "experiments/training/training_runner.h"

namespace jetchar::experiments {

namespace {

// The same synthetic batch `count` times per epoch: the probe measures memory and time of the
// training step, not of a data path.
class RepeatedBatchSource : public loaders::BatchSource {
 public:
  RepeatedBatchSource(loaders::Batch batch, std::int64_t count) : batch_(std::move(batch)), count_(count) {}
  void start_epoch(std::int64_t) override { position_ = 0; }
  std::optional<loaders::Batch> next() override {
    if (position_ >= count_) return std::nullopt;
    auto batch = batch_;
    batch.index = position_++;
    return batch;
  }
  std::int64_t batches_per_epoch() const override { return count_; }
  std::int64_t samples_per_epoch() const override { return count_ * batch_.inputs.size(0); }

 private:
  loaders::Batch batch_;
  std::int64_t count_;
  std::int64_t position_ = 0;
};

// Everything that reserves address space once, before the limit is measured: the intra-op thread
// pool (and its threads' malloc arenas and stacks) through a parallel matmul, and the autograd
// engine through a backward pass.
void warm_up(const torch::Device& device) {
  auto a = torch::randn({256, 256}, torch::TensorOptions().device(device).requires_grad(true));
  auto loss = torch::matmul(a, a).relu().sum();
  loss.backward();
  at::parallel_for(0, 1024, 1, [](std::int64_t, std::int64_t) {});
  if (device.is_cuda()) synchronize(device);
}

std::optional<std::uint64_t> status_bytes(const sysfs::Root& root, const char* field) {
  const auto kib = own_status_kib(root, field);
  return kib ? std::optional<std::uint64_t>(*kib * 1024) : std::nullopt;
}

// Timed steps: every optimizer step after the first (which allocates the optimizer's state).
void time_steps(const TrainingResult& result, std::int64_t accumulate, ProbeOutcome& outcome) {
  const auto& records = result.minibatches;
  const auto steps = static_cast<std::int64_t>(records.size()) / accumulate;
  if (steps < 2) return;
  const auto first = static_cast<std::size_t>(accumulate);
  const auto& last = records[static_cast<std::size_t>(steps * accumulate - 1)];
  outcome.timed_steps = steps - 1;
  outcome.timed_begin_ns = records[first].start_ns;
  outcome.timed_end_ns = last.start_ns + last.stall_ns + last.compute_ns;
  outcome.step_ns =
      static_cast<double>(*outcome.timed_end_ns - *outcome.timed_begin_ns) / static_cast<double>(outcome.timed_steps);
}

}  // namespace

ProbeOutcome run_training_probe(const ProbeRequest& request, const sysfs::Root& root) {
  const auto& spec = find_model(request.model);
  if (!spec.token_input()) {
    throw std::invalid_argument(
        fmt::format("model {} takes images; the memory frontier probes token models (bert-*, distilbert*)", spec.name));
  }
  // The trainer's settings as every run's: from the resolved spec of the probe's one epoch.
  proto::ExperimentSpec probe;
  auto* w = probe.mutable_workload();
  w->set_model(request.model);
  w->set_device(request.device);
  w->set_precision(proto_precision(parse_precision(request.precision)));
  w->set_accumulate(static_cast<std::uint32_t>(request.accumulate));
  w->set_max_minibatches(static_cast<std::uint32_t>(request.steps * request.accumulate));
  w->set_seed(request.seed);
  probe.mutable_measurement()->set_minibatch_records(true);
  const TrainingConfig config = training_config(resolve_defaults(probe));
  if (request.threads) set_compute_threads(*request.threads);

  ProbeOutcome outcome;
  warm_up(config.device);
  if (request.budget_bytes) {
    if (config.device.is_cuda()) {
      throw std::invalid_argument("a memory budget bounds CPU runs; on a CUDA device its own memory bounds the run");
    }
    const auto limit = limit_address_space(root, *request.budget_bytes);
    outcome.baseline_vm_bytes = limit.baseline_vm_bytes;
    outcome.limit_bytes = limit.limit_bytes;
  }
  try {
    auto model = make_model(spec);
    RepeatedBatchSource source(
        synthetic_batch(spec, request.micro_batch, spec.default_classes, {request.sequence_length}, request.seed),
        *config.max_batches);
    const auto result = train(*model, source, config, root, spec.name);
    switch (result.status) {
      case RunStatus::kOk: outcome.status = ProbeStatus::kFits; break;
      case RunStatus::kOom: outcome.status = ProbeStatus::kOutOfMemory; break;
      default: outcome.status = ProbeStatus::kFailed;
    }
    outcome.error = result.error;
    outcome.cuda_peak_reserved_bytes = result.memory.cuda_peak_reserved_bytes;
    if (outcome.status == ProbeStatus::kFits) time_steps(result, request.accumulate, outcome);
  } catch (const std::exception& error) {
    // Building the model or its batch can be what does not fit.
    outcome.status = is_out_of_memory(error) ? ProbeStatus::kOutOfMemory : ProbeStatus::kFailed;
    outcome.error = error.what();
  }
  outcome.peak_vm_bytes = status_bytes(root, "VmPeak");
  outcome.peak_rss_bytes = status_bytes(root, "VmHWM");
  return outcome;
}

}  // namespace jetchar::experiments
