// Latency summary of an inference run: avg, p50, p90, p95, p99 and max by the nearest-rank rule
// (the value at rank ⌈p·N⌉ of the sorted latencies, as DLE's "confidence level" columns and
// LoadGen's percentile lines read).
#pragma once

#include <cstdint>
#include <span>

#include <nlohmann/json.hpp>

namespace jetchar::experiments {

struct LatencyStats {
  std::int64_t count = 0;
  double avg_ns = 0;
  std::int64_t min_ns = 0;
  std::int64_t p50_ns = 0;
  std::int64_t p90_ns = 0;
  std::int64_t p95_ns = 0;
  std::int64_t p99_ns = 0;
  std::int64_t max_ns = 0;
};

/// The nearest-rank percentile `p` (0 < p <= 100) of `sorted` (ascending, non-empty).
std::int64_t nearest_rank(std::span<const std::int64_t> sorted, double p);
/// Summary of `latencies_ns` (any order). Throws std::invalid_argument when empty.
LatencyStats latency_stats(std::span<const std::int64_t> latencies_ns);
nlohmann::json to_json(const LatencyStats& stats);

}  // namespace jetchar::experiments
