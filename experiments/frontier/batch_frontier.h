// The memory frontier: the largest batch of a model, precision and sequence length that trains
// without running out of memory, and the micro-batch × accumulation splits of that batch with their
// step time (and energy where the board measures power) — what the BERT write-ups found by hand.
//
// The search assumes what holds for a training step: if a batch fits, every smaller one does. It
// doubles the batch from `start_batch` until a probe runs out of memory (or `max_batch` fits), then
// bisects between the largest batch that fitted and the smallest that did not, so it takes about
// 2·log2(largest) probes. Each probe is a short training run in its own process (probe_child.h)
// under the budget, so the search itself never holds the memory it measures.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/frontier/probe_protocol.h"

namespace jetchar::experiments {

/// Runs one probe; the search calls it with `base` and the batch it tries.
using Prober = std::function<ProbeOutcome(const ProbeRequest&)>;

struct FrontierSearchOptions {
  std::int64_t start_batch = 1;
  std::int64_t max_batch = 4096;
  /// Called after every probe (progress lines).
  std::function<void(const ProbeRequest&, const ProbeOutcome&)> on_probe;
};

struct FrontierProbe {
  std::int64_t batch = 0;
  ProbeOutcome outcome;
};

struct BatchFrontier {
  /// The largest batch that fitted; nullopt when not even start_batch did.
  std::optional<std::int64_t> largest_batch;
  /// The smallest batch that ran out of memory; nullopt when max_batch fitted.
  std::optional<std::int64_t> smallest_failing_batch;
  std::vector<FrontierProbe> probes;  ///< in the order they ran
};

/// Throws std::invalid_argument for start_batch < 1 or max_batch < start_batch, and
/// std::runtime_error naming the batch and the probe's error when a probe fails for a reason other
/// than memory (the frontier is unknown then).
BatchFrontier search_batch_frontier(const ProbeRequest& base, const Prober& probe,
                                    const FrontierSearchOptions& options);

/// Every micro-batch × accumulation whose product is `batch` (micro-batches that divide it),
/// the largest micro-batch first. Throws std::invalid_argument for batch < 1.
std::vector<std::pair<std::int64_t, std::int64_t>> accumulation_splits(std::int64_t batch);

struct SplitMeasurement {
  std::int64_t micro_batch = 0;
  std::int64_t accumulate = 0;
  ProbeOutcome outcome;
  /// Energy of the timed steps per optimizer step, J, and what it is (the board input rail or the
  /// sum of module rails, jetson/energy); absent where the board measures no power.
  std::optional<double> step_energy_j;
  std::optional<std::string> energy_source;
};

/// Runs each split of `batch` with `steps` optimizer steps (the first untimed) through `probe`.
std::vector<SplitMeasurement> measure_splits(const ProbeRequest& base, std::int64_t batch, std::int64_t steps,
                                             const Prober& probe,
                                             const std::function<void(const SplitMeasurement&)>& on_split = {});

nlohmann::json to_json(const BatchFrontier& frontier);
nlohmann::json to_json(const SplitMeasurement& split);

}  // namespace jetchar::experiments
