#include "experiments/inference/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace jetchar::experiments {

std::int64_t nearest_rank(std::span<const std::int64_t> sorted, double p) {
  if (sorted.empty()) throw std::invalid_argument("nearest_rank: no latencies");
  if (!(p > 0 && p <= 100)) throw std::invalid_argument("nearest_rank: percentile must be in (0, 100]");
  const auto n = static_cast<double>(sorted.size());
  // Rounding guards against p·N landing a hair above an integer (e.g. 0.9·10 = 9.000000000000002).
  auto rank = static_cast<std::size_t>(std::ceil(std::round(p / 100.0 * n * 1e9) / 1e9));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

LatencyStats latency_stats(std::span<const std::int64_t> latencies_ns) {
  if (latencies_ns.empty()) throw std::invalid_argument("latency statistics need at least one latency");
  std::vector<std::int64_t> sorted(latencies_ns.begin(), latencies_ns.end());
  std::sort(sorted.begin(), sorted.end());
  LatencyStats stats;
  stats.count = static_cast<std::int64_t>(sorted.size());
  stats.avg_ns = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  stats.min_ns = sorted.front();
  stats.p50_ns = nearest_rank(sorted, 50);
  stats.p90_ns = nearest_rank(sorted, 90);
  stats.p95_ns = nearest_rank(sorted, 95);
  stats.p99_ns = nearest_rank(sorted, 99);
  stats.max_ns = sorted.back();
  return stats;
}

nlohmann::json to_json(const LatencyStats& stats) {
  return {{"count", stats.count},   {"avg_ns", stats.avg_ns}, {"min_ns", stats.min_ns}, {"p50_ns", stats.p50_ns},
          {"p90_ns", stats.p90_ns}, {"p95_ns", stats.p95_ns}, {"p99_ns", stats.p99_ns}, {"max_ns", stats.max_ns}};
}

}  // namespace jetchar::experiments
