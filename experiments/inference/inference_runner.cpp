#include "experiments/inference/inference_runner.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "experiments/torch_device.h"
#include "experiments/training/out_of_memory.h"
#include "sysfs/monotonic_clock.h"

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
  if (config.scenario == InferenceScenario::kSingleStream && config.batch_size != 1) {
    throw std::invalid_argument(
        fmt::format("batch size {} is not valid for the single-stream scenario (queries of one sample); valid: 1",
                    config.batch_size));
  }
  if (config.scenario == InferenceScenario::kServer && !(config.latency_bound_ms > 0)) {
    throw std::invalid_argument(fmt::format("latency bound {} ms must be positive", config.latency_bound_ms));
  }
}

// The first `samples` of `batch` (views): a server's batch of the queries that were queued.
loaders::Batch first_samples(const loaders::Batch& batch, std::int64_t samples) {
  if (samples == batch.inputs.size(0)) return batch;
  const auto first = [samples](const torch::Tensor& t) { return t.defined() ? t.narrow(0, 0, samples) : t; };
  return {first(batch.inputs), first(batch.targets), first(batch.attention_mask), first(batch.token_type_ids),
          batch.index};
}

// Back-to-back queries of the largest batch a server forms, after the warm-up: the median's
// samples per second is the most it can sustain (server_scenario.h starts below it).
constexpr int kCapacityQueries = 5;

// A data set's query batches must have the run's batch size, the requested sequence length and
// token ids inside the model's vocabulary (an id past it would fail deep inside the embedding).
// Returns the samples' sequence length for token models.
std::optional<std::int64_t> check_inputs(const QueryInputs& inputs, const InferenceConfig& config,
                                         const ModelSpec& spec) {
  if (inputs.batches.empty()) throw std::invalid_argument(fmt::format("{}: no query batches", inputs.name));
  const auto& first = inputs.batches.front();
  if (first.inputs.size(0) != config.batch_size) {
    throw std::invalid_argument(fmt::format("{}: query batches of {} samples for batch size {}", inputs.name,
                                            first.inputs.size(0), config.batch_size));
  }
  if (!spec.token_input()) return std::nullopt;
  const std::int64_t length = first.inputs.size(1);
  if (config.sequence_length && *config.sequence_length != length) {
    throw std::invalid_argument(fmt::format("sequence length {} differs from the {} tokens of {}'s samples",
                                            *config.sequence_length, length, inputs.name));
  }
  std::int64_t largest_id = 0;
  for (const auto& batch : inputs.batches) largest_id = std::max(largest_id, batch.inputs.max().item<std::int64_t>());
  if (largest_id >= spec.vocab_size) {
    throw std::invalid_argument(
        fmt::format("{}: token id {} is outside {}'s vocabulary of {} ids; tokenize with the model's vocab.txt "
                    "(?vocab=FILE, or --pretrained with the checkpoint's)",
                    inputs.name, largest_id, spec.name, spec.vocab_size));
  }
  return length;
}

// The server scenario after the warm-up: the search from `capacity_qps`, on the host's clock (a
// dilated board's bound and trial durations stretched by its k); the result's latencies and timed
// span are the highest passing trial's.
void search_server_rate(const ServeBatch& serve, const StopRequested& stop, double capacity_qps,
                        const InferenceConfig& config, InferenceResult& result) {
  const double k = config.time_dilation ? config.time_dilation() : 1.0;
  ServerSettings settings;
  settings.latency_bound_ns = std::llround(config.latency_bound_ms * 1e6 * k);
  settings.max_batch = config.batch_size;
  settings.min_queries = config.min_queries.value_or(config.min_duration_s ? 1 : 100);
  settings.min_duration_s = config.min_duration_s.value_or(0.0) * k;
  settings.seed = config.seed;
  auto search = find_peak_server_qps(settings, capacity_qps, serve, stop, config.on_server_trial);
  if (search.best) {
    const auto& best = search.best_run;
    result.latencies_ns = best.latencies_ns;
    result.latency = latency_stats(result.latencies_ns);
    result.timed_begin_ns = best.begin_monotonic_ns;
    result.timed_end_ns = best.end_monotonic_ns;
    result.timed_ns = best.span_ns;
    result.host_delay_ns = best.host_delay_ns;
    if (best.span_ns > 0)
      result.samples_per_s = static_cast<double>(best.latencies_ns.size()) * 1e9 / static_cast<double>(best.span_ns);
  }
  result.server = std::move(search);
}

// The figure the scenario answers with (to_json's "headline").
nlohmann::json headline(const InferenceResult& result) {
  switch (result.scenario) {
    case InferenceScenario::kSingleStream:
      if (!result.latency) break;
      return {{"figure", "p90_ms"}, {"value", static_cast<double>(result.latency->p90_ns) / 1e6}};
    case InferenceScenario::kOffline: return {{"figure", "samples_per_s"}, {"value", result.samples_per_s}};
    case InferenceScenario::kServer: {
      if (!result.server) break;
      const auto max_qps = result.server->max_qps();
      const auto p99 = result.server->max_qps_p99_ns();
      return {{"figure", "max_qps"},
              {"value", max_qps ? nlohmann::json(*max_qps) : nlohmann::json(nullptr)},
              {"p99_ms", p99 ? nlohmann::json(static_cast<double>(*p99) / 1e6) : nlohmann::json(nullptr)},
              {"latency_bound_ms", static_cast<double>(result.server->settings.latency_bound_ns) / 1e6}};
    }
    case InferenceScenario::kBatches: break;
  }
  return nullptr;
}

}  // namespace

std::string_view scenario_name(InferenceScenario scenario) {
  switch (scenario) {
    case InferenceScenario::kSingleStream: return "single-stream";
    case InferenceScenario::kOffline: return "offline";
    case InferenceScenario::kServer: return "server";
    case InferenceScenario::kBatches: break;
  }
  return "batches";
}

nlohmann::json to_json(const InferenceResult& result) {
  return {
      {"status", run_status_name(result.status)},
      {"scenario", scenario_name(result.scenario)},
      {"headline", headline(result)},
      {"server", result.server ? to_json(*result.server) : nlohmann::json(nullptr)},
      {"error", result.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(result.error)},
      {"model", result.model},
      {"settings",
       {{"device", result.device},
        {"precision", result.precision},
        {"batch_size", result.batch_size},
        {"sequence_length", result.sequence_length ? nlohmann::json(*result.sequence_length) : nlohmann::json(nullptr)},
        {"warmup", result.warmup},
        {"threads", result.threads},
        {"inputs", result.inputs},
        {"input_samples", result.input_samples ? nlohmann::json(*result.input_samples) : nlohmann::json(nullptr)}}},
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
  result.scenario = config.scenario;
  result.warmup = config.warmup;
  result.threads = torch::get_num_threads();
  auto input = spec.default_input;
  if (config.inputs != nullptr) {
    result.sequence_length = check_inputs(*config.inputs, config, spec);
    result.inputs = config.inputs->name;
    result.input_samples = config.inputs->samples;
  } else if (spec.token_input()) {
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
    // Every query's inputs are on the device before the first query: a query times the model only.
    std::vector<loaders::Batch> batches;
    if (config.inputs != nullptr) {
      batches.reserve(config.inputs->batches.size());
      for (const auto& batch : config.inputs->batches) batches.push_back(to_device(batch, config.device));
    } else {
      batches.push_back(
          to_device(synthetic_batch(spec, config.batch_size, config.num_classes.value_or(spec.default_classes), input,
                                    config.seed),
                    config.device));
    }
    // A server's smaller batches: the first n samples of each, for every n below the batch size.
    std::vector<std::vector<loaders::Batch>> smaller;
    if (config.scenario == InferenceScenario::kServer) {
      for (std::int64_t n = 1; n < config.batch_size; ++n) {
        auto& of_n = smaller.emplace_back();
        for (const auto& batch : batches) of_n.push_back(first_samples(batch, n));
      }
    }
    std::size_t next_batch = 0;
    auto query = [&](std::int64_t samples) {
      const auto query_start = Clock::now();
      const auto& batch = samples < config.batch_size ? smaller.at(static_cast<std::size_t>(samples - 1))[next_batch]
                                                      : batches[next_batch];
      next_batch = (next_batch + 1) % batches.size();
      AutocastScope autocast(config.precision, config.device);
      auto logits = model.forward_batch(batch);
      synchronize(config.device);
      return config.pace_query ? config.pace_query(query_start, batch.inputs.size(0)) : Clock::now();
    };
    const auto queried = [&] {
      if (config.on_query) config.on_query();
    };
    const auto stop = [&config] { return config.stop_requested && config.stop_requested(); };
    for (std::int64_t i = 0; i < config.warmup && !stop(); ++i) {
      query(config.batch_size);
      queried();
    }
    if (config.scenario == InferenceScenario::kServer) {
      std::vector<std::int64_t> capacity_ns;
      for (int i = 0; i < kCapacityQueries && !stop(); ++i) {
        const auto query_start = Clock::now();
        const auto done = query(config.batch_size);  // on the board's clock: a host's overrun is not capacity
        capacity_ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(done - query_start).count());
        queried();
      }
      if (!capacity_ns.empty()) {  // else stopped in the warm-up
        const auto idle = [&config](bool idle) {
          if (config.board_idle) config.board_idle(idle);
        };
        idle(true);  // the first query arrives after the search's start
        std::sort(capacity_ns.begin(), capacity_ns.end());
        const double median_s = static_cast<double>(capacity_ns[capacity_ns.size() / 2]) / 1e9;
        search_server_rate(
            [&](std::int64_t samples) {
              idle(false);
              const auto done = query(samples);
              idle(true);  // until the next batch begins
              queried();
              return done;
            },
            stop, static_cast<double>(config.batch_size) / std::max(median_s, 1e-9), config, result);
        idle(false);
      }
      result.memory = monitor.stop();
      return result;
    }
    result.timed_begin_ns = sysfs::monotonic_ns();
    const auto start = Clock::now();
    auto now = start;
    while ((static_cast<std::int64_t>(result.latencies_ns.size()) < min_queries || now - start < min_duration) &&
           !stop()) {
      const auto query_start = Clock::now();
      const auto paced_end = query(config.batch_size);
      now = Clock::now();
      // A paced query ends when the board's would; the host's time past that is its own delay.
      const auto end = config.pace_query ? paced_end : now;
      result.latencies_ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(end - query_start).count());
      result.host_delay_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(now - end).count();
      queried();
    }
    result.timed_end_ns = sysfs::monotonic_ns();
    result.timed_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count() - result.host_delay_ns;
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
