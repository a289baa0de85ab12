#include "experiments/run_settings.h"

#include <algorithm>

#include "experiments/torch_device.h"

namespace jetchar::experiments {
namespace {

constexpr double kDefaultSampleRateHz = 100;
// A collective waits this long for a silent rank (a killed one is seen at once: its sockets
// close). Long enough for rank 0's untimed evaluation between epochs, which the others wait out.
constexpr double kDefaultDistributedTimeoutS = 300;

}  // namespace

proto::ExperimentSpec resolve_defaults(const proto::ExperimentSpec& spec) {
  proto::ExperimentSpec r = spec;
  auto* w = r.mutable_workload();
  if (w->task() == proto::TASK_UNSPECIFIED) w->set_task(proto::TRAIN);
  if (w->accumulate() == 0) w->set_accumulate(1);
  if (w->epochs() == 0) w->set_epochs(1);
  if (w->precision() == proto::PRECISION_UNSPECIFIED) w->set_precision(proto::FP32);
  if (w->device().empty()) w->set_device(torch::cuda::is_available() ? "cuda" : "cpu");
  if (w->task() == proto::INFER && !w->inference().has_warmup_batches()) w->mutable_inference()->set_warmup_batches(10);
  // The latency bound is the Server scenario's (LoadGen's default 100 ms); another run never used
  // it, so it does not tell that run apart (an axis over scenarios may carry one in its base).
  if (w->task() == proto::INFER && w->inference().scenario() == proto::SERVER) {
    if (!w->inference().has_latency_bound_ms())
      w->mutable_inference()->set_latency_bound_ms(kDefaultServerLatencyBoundMs);
  } else if (w->has_inference()) {
    w->mutable_inference()->clear_latency_bound_ms();
  }
  // A spec that names workload.distributed keeps it, one rank included (an axis over
  // nproc_per_node labels its single-process runs too); one that does not stays without it, as
  // runs before it existed, so that it keys with them.
  if (w->has_distributed()) {
    auto* d = w->mutable_distributed();
    if (d->nproc_per_node() == 0) d->set_nproc_per_node(1);
    if (d->nnodes() == 0) d->set_nnodes(1);
    if (d->backend().empty()) d->set_backend("gloo");
    if (d->master_addr().empty()) d->set_master_addr("127.0.0.1");
    if (d->timeout_s() == 0) d->set_timeout_s(kDefaultDistributedTimeoutS);
  }
  auto* l = r.mutable_loader();
  if (l->prefetch() == 0) l->set_prefetch(2);
  if (!l->has_shuffle()) l->set_shuffle(true);
  if (r.cache() == proto::CACHE_POLICY_UNSPECIFIED) r.set_cache(proto::WARM);
  if (r.measurement().sample_rate_hz() == 0) r.mutable_measurement()->set_sample_rate_hz(kDefaultSampleRateHz);
  if (r.repetitions() == 0) r.set_repetitions(1);
  return r;
}

Precision precision_of(const proto::WorkloadSpec& workload) {
  switch (workload.precision()) {
    case proto::TF32: return Precision::kTf32;
    case proto::AMP_FP16: return Precision::kAmpFp16;
    case proto::BF16: return Precision::kBf16;
    default: return Precision::kFp32;
  }
}

proto::Precision proto_precision(Precision precision) {
  switch (precision) {
    case Precision::kTf32: return proto::TF32;
    case Precision::kAmpFp16: return proto::AMP_FP16;
    case Precision::kBf16: return proto::BF16;
    case Precision::kFp32: break;
  }
  return proto::FP32;
}

InferenceScenario scenario_of(const proto::InferenceSpec& inference) {
  switch (inference.scenario()) {
    case proto::SINGLE_STREAM: return InferenceScenario::kSingleStream;
    case proto::OFFLINE: return InferenceScenario::kOffline;
    case proto::SERVER: return InferenceScenario::kServer;
    default: return InferenceScenario::kBatches;
  }
}

loaders::PipelineOptions training_pipeline_options(const proto::ExperimentSpec& spec) {
  const auto& w = spec.workload();
  loaders::PipelineOptions pipeline_options;
  pipeline_options.batch_size = w.batch_size();
  pipeline_options.num_workers = static_cast<int>(spec.loader().workers());
  pipeline_options.prefetch_factor = static_cast<int>(spec.loader().prefetch());
  pipeline_options.shuffle = spec.loader().shuffle();
  pipeline_options.seed = w.seed();
  pipeline_options.drop_last = spec.loader().drop_last();
  pipeline_options.pin_memory = spec.loader().pin_memory();
  return pipeline_options;
}

TrainingConfig training_config(const proto::ExperimentSpec& spec) {
  const auto& w = spec.workload();
  TrainingConfig config;
  config.device = parse_device(w.device());
  config.epochs = w.epochs();
  config.accumulate = w.accumulate();
  if (w.has_learning_rate()) config.learning_rate = w.learning_rate();
  if (w.has_warmup_proportion()) config.warmup_proportion = w.warmup_proportion();
  if (w.optimizer() != proto::OPTIMIZER_UNSPECIFIED)
    config.optimizer = w.optimizer() == proto::SGD ? OptimizerKind::kSgd : OptimizerKind::kAdamW;
  if (w.has_weight_decay()) config.weight_decay = w.weight_decay();
  config.precision = precision_of(w);
  config.sync_per_batch = !w.async();
  if (w.max_minibatches() > 0) config.max_batches = w.max_minibatches();
  config.seed = w.seed();
  config.keep_minibatch_records = spec.measurement().minibatch_records();
  return config;
}

bool data_parallel(const proto::WorkloadSpec& workload) {
  const auto& d = workload.distributed();
  return std::max<std::uint32_t>(1, d.nproc_per_node()) * std::max<std::uint32_t>(1, d.nnodes()) > 1;
}

int rank_threads(const proto::WorkloadSpec& workload, int machine_default) {
  if (workload.threads() > 0) return static_cast<int>(workload.threads());
  const int ranks = static_cast<int>(std::max<std::uint32_t>(1, workload.distributed().nproc_per_node()));
  return std::max(1, machine_default / ranks);
}

}  // namespace jetchar::experiments
