#include "experiments/inference/inference_runner.h"

#include <chrono>
#include <stdexcept>

#include <fmt/format.h>

#include "experiments/torch_device.h"
#include "experiments/training/out_of_memory.h"

namespace jetchar::experiments {

namespace {

using Clock = std::chrono::steady_clock;

void validate(const InferenceConfig& config, const ModelSpec& spec) {
  if (config.batch_size < 1)
    throw std::invalid_argument(fmt::format("batch size {} must be at least 1", config.batch_size));
  if (config.warmup < 0) throw std::invalid_argument(fmt::format("warm-up {} must not be negative", config.warmup));
  if (config.min_queries && *config.min_queries < 1) {
    throw std::invalid_argument(fmt::format("query count {} must be at least 1", *config.min_queries));
  }
  if (config.min_duration_s && !(*config.min_duration_s > 0)) {
    throw std::invalid_argument(fmt::format("duration {} s must be positive", *config.min_duration_s));
  }
  if (config.sequence_length) {
    if (!spec.token_input()) {
      throw std::invalid_argument(
          fmt::format("--seq-len applies to token models; {} takes {} images", spec.name, spec.input_description()));
    }
    if (*config.sequence_length < 2 || *config.sequence_length > 512) {
      throw std::invalid_argument(
          fmt::format("sequence length {} is not valid; valid: 2 .. 512", *config.sequence_length));
    }
  }
  check_precision(config.precision, config.device);
}

}  // namespace

nlohmann::json to_json(const InferenceResult& result) {
  return {
      {"status", run_status_name(result.status)},
      {"error", result.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(result.error)},
      {"model", result.model},
      {"settings",
       {{"device", result.device},
        {"precision", result.precision},
        {"batch_size", result.batch_size},
        {"sequence_length", result.sequence_length ? nlohmann::json(*result.sequence_length) : nlohmann::json(nullptr)},
        {"warmup", result.warmup},
        {"threads", result.threads}}},
      {"latency", result.latency ? to_json(*result.latency) : nlohmann::json(nullptr)},
      {"timed_ns", result.timed_ns},
      {"samples_per_s", result.samples_per_s},
      {"latencies_ns", result.latencies_ns},
      {"memory", to_json(result.memory)}};
}

InferenceResult run_inference(Network& model, const ModelSpec& spec, const InferenceConfig& config,
                              const sysfs::Root& root) {
  validate(config, spec);
  InferenceResult result;
  result.model = spec.name;
  result.device = config.device.str();
  result.precision = resolved_precision(config.precision, config.device);
  result.batch_size = config.batch_size;
  result.warmup = config.warmup;
  result.threads = torch::get_num_threads();
  auto input = spec.default_input;
  if (spec.token_input()) {
    input = {config.sequence_length.value_or(spec.default_input.at(0))};
    result.sequence_length = input[0];
  }
  const auto min_queries = config.min_queries.value_or(config.min_duration_s ? 1 : 100);
  const auto min_duration = std::chrono::duration<double>(config.min_duration_s.value_or(0.0));

  Tf32Scope tf32(config.precision == Precision::kTf32);
  MemoryMonitor monitor(root, config.device);
  try {
    model.to(config.device);
    model.eval();
    // Inference mode (not only no-grad): no version counters or view tracking on the hot path, as
    // a deployed LibTorch server would run. Entered after model.to() so the parameters stay normal
    // tensors that a later training run may still use.
    c10::InferenceMode inference_mode;
    auto batch = to_device(
        synthetic_batch(spec, config.batch_size, config.num_classes.value_or(spec.default_classes), input, config.seed),
        config.device);
    auto query = [&] {
      AutocastScope autocast(config.precision, config.device);
      auto logits = model.forward_batch(batch);
      synchronize(config.device);
      return logits;
    };
    const auto queried = [&] {
      if (config.on_query) config.on_query();
    };
    for (std::int64_t i = 0; i < config.warmup; ++i) {
      query();
      queried();
    }
    const auto start = Clock::now();
    auto now = start;
    while (static_cast<std::int64_t>(result.latencies_ns.size()) < min_queries || now - start < min_duration) {
      const auto query_start = Clock::now();
      query();
      now = Clock::now();
      result.latencies_ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(now - query_start).count());
      queried();
    }
    result.timed_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count();
    result.latency = latency_stats(result.latencies_ns);
    if (result.timed_ns > 0) {
      result.samples_per_s = static_cast<double>(result.latencies_ns.size() * config.batch_size) * 1e9 /
                             static_cast<double>(result.timed_ns);
    }
  } catch (const std::exception& error) {
    result.status = is_out_of_memory(error) ? RunStatus::kOom : RunStatus::kFailed;
    result.error = run_error_text(error.what(), config.precision, config.device);
    release_cached_memory(config.device);
  }
  result.memory = monitor.stop();
  return result;
}

}  // namespace jetchar::experiments
