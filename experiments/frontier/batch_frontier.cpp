#include "experiments/frontier/batch_frontier.h"

#include <fmt/format.h>

#include <stdexcept>

namespace jetchar::experiments {

namespace {

// One probe at `batch` (micro-batch `batch`, no accumulation); true when it fitted.
bool fits(const ProbeRequest& base, std::int64_t batch, const Prober& probe, const FrontierSearchOptions& options,
          BatchFrontier& frontier) {
  ProbeRequest request = base;
  request.micro_batch = batch;
  request.accumulate = 1;
  auto outcome = probe(request);
  if (options.on_probe) options.on_probe(request, outcome);
  frontier.probes.push_back({batch, outcome});
  if (outcome.status == ProbeStatus::kFailed) {
    throw std::runtime_error(
        fmt::format("memory frontier of {} at seq {}: the probe at batch {} failed for a reason other than memory, "
                    "so the frontier is unknown: {}",
                    base.model, base.sequence_length, batch, outcome.error));
  }
  return outcome.status == ProbeStatus::kFits;
}

}  // namespace

BatchFrontier search_batch_frontier(const ProbeRequest& base, const Prober& probe,
                                    const FrontierSearchOptions& options) {
  if (options.start_batch < 1) {
    throw std::invalid_argument(fmt::format("start batch {} must be at least 1", options.start_batch));
  }
  if (options.max_batch < options.start_batch) {
    throw std::invalid_argument(
        fmt::format("max batch {} must be at least the start batch {}", options.max_batch, options.start_batch));
  }
  BatchFrontier frontier;
  // Growth: lo fitted, hi did not.
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  for (std::int64_t batch = options.start_batch;;) {
    if (!fits(base, batch, probe, options, frontier)) {
      hi = batch;
      break;
    }
    lo = batch;
    if (batch == options.max_batch) break;
    batch = std::min(batch * 2, options.max_batch);
  }
  if (hi == 0) {
    frontier.largest_batch = lo;
    return frontier;
  }
  // Bisection; when start_batch itself did not fit, between 0 and it.
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (fits(base, mid, probe, options, frontier)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  if (lo > 0) frontier.largest_batch = lo;
  frontier.smallest_failing_batch = hi;
  return frontier;
}

std::vector<std::pair<std::int64_t, std::int64_t>> accumulation_splits(std::int64_t batch) {
  if (batch < 1) throw std::invalid_argument(fmt::format("batch {} must be at least 1", batch));
  std::vector<std::pair<std::int64_t, std::int64_t>> splits;
  for (std::int64_t micro = batch; micro >= 1; --micro) {
    if (batch % micro == 0) splits.emplace_back(micro, batch / micro);
  }
  return splits;
}

std::vector<SplitMeasurement> measure_splits(const ProbeRequest& base, std::int64_t batch, std::int64_t steps,
                                             const Prober& probe,
                                             const std::function<void(const SplitMeasurement&)>& on_split) {
  if (steps < 2) {
    throw std::invalid_argument(fmt::format("split steps {} must be at least 2 (the first is not timed)", steps));
  }
  std::vector<SplitMeasurement> splits;
  for (const auto& [micro, accumulate] : accumulation_splits(batch)) {
    ProbeRequest request = base;
    request.micro_batch = micro;
    request.accumulate = accumulate;
    request.steps = steps;
    SplitMeasurement split{micro, accumulate, probe(request), std::nullopt, std::nullopt};
    if (on_split) on_split(split);
    splits.push_back(std::move(split));
  }
  return splits;
}

nlohmann::json to_json(const BatchFrontier& frontier) {
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& probe : frontier.probes) {
    auto json = to_json(probe.outcome);
    json["batch"] = probe.batch;
    probes.push_back(std::move(json));
  }
  return {{"largest_batch", frontier.largest_batch ? nlohmann::json(*frontier.largest_batch) : nlohmann::json()},
          {"smallest_failing_batch",
           frontier.smallest_failing_batch ? nlohmann::json(*frontier.smallest_failing_batch) : nlohmann::json()},
          {"probes", std::move(probes)}};
}

nlohmann::json to_json(const SplitMeasurement& split) {
  auto json = to_json(split.outcome);
  json["micro_batch"] = split.micro_batch;
  json["accumulate"] = split.accumulate;
  if (split.step_energy_j) json["step_energy_j"] = *split.step_energy_j;
  if (split.energy_source) json["energy_source"] = *split.energy_source;
  return json;
}

}  // namespace jetchar::experiments
