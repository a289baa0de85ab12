#include "cli/sweep_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "results/epoch_medians.h"

namespace jetchar::cli {
namespace {

bool is_inference(const proto::RunResult& result) { return result.resolved().workload().task() == proto::INFER; }

// The whole mode name: custom modes differ only at the end ("custom: 4 cores CPU/GPU/EMC 1728/612/...").
std::size_t mode_width(const std::vector<const proto::RunResult*>& runs) {
  std::size_t width = 4;
  for (const auto* result : runs) width = std::max(width, result->context().power_mode().size());
  return width;
}

void print_training(const std::vector<const proto::RunResult*>& runs) {
  const std::size_t width = mode_width(runs);
  fmt::print("{:<9} {:<8} {:<{}} {:>7} {:>7} {:>12} {:>12} {:>12} {:>8}\n", "run", "status", "mode", width, "batch",
             "workers", "E2E s", "stall s", "energy J", "adaptive");
  bool cold = false;
  for (const auto* result : runs) {
    const results::EpochMedians medians = results::warm_epoch_medians(*result);
    cold = cold || medians.cold_only;
    const auto shown = [&](const std::optional<double>& value) {
      return value ? fmt::format("{:.3f}{}", *value, medians.cold_only ? "*" : "") : std::string("-");
    };
    const auto& spec = result->resolved();
    // Minibatches an adaptive run needed ("all" when it never settled), "-" without adaptive stopping.
    const std::string adaptive = !result->has_adaptive()              ? "-"
                                 : result->adaptive_minibatches() > 0 ? std::to_string(result->adaptive_minibatches())
                                                                      : "all";
    fmt::print("{:<9} {:<8} {:<{}} {:>7} {:>7} {:>12} {:>12} {:>12} {:>8}\n", result->run_id(),
               proto::RunStatus_Name(result->status()), result->context().power_mode(), width,
               spec.workload().batch_size(), spec.loader().workers(), shown(medians.e2e_s), shown(medians.stall_s),
               shown(medians.energy_j), adaptive);
  }
  fmt::print("E2E, stall and energy: {}\n",
             cold ? results::kWarmEpochsNote : "medians over warm epochs (every epoch after epoch 0)");
}

void print_inference(const std::vector<const proto::RunResult*>& runs) {
  const std::size_t width = mode_width(runs);
  fmt::print("{:<9} {:<8} {:<{}} {:>7} {:>7} {:>10} {:>10} {:>11} {:>10}\n", "run", "status", "mode", width, "batch",
             "seq", "p50 ms", "p99 ms", "samples/s", "J/query");
  for (const auto* result : runs) {
    const auto& workload = result->resolved().workload();
    // A run that ended before its timed queries has no latency: "-" rather than zeros.
    const bool timed = result->has_latency() && result->latency().batches() > 0;
    const auto& latency = result->latency();
    const auto figure = [timed](double value, const char* format) {
      return timed ? fmt::format(fmt::runtime(format), value) : std::string("-");
    };
    fmt::print("{:<9} {:<8} {:<{}} {:>7} {:>7} {:>10} {:>10} {:>11} {:>10}\n", result->run_id(),
               proto::RunStatus_Name(result->status()), result->context().power_mode(), width, workload.batch_size(),
               workload.sequence_length() > 0 ? std::to_string(workload.sequence_length()) : std::string("-"),
               figure(latency.p50_ms(), "{:.3f}"), figure(latency.p99_ms(), "{:.3f}"),
               figure(latency.throughput_samples_per_s(), "{:.1f}"),
               timed && latency.has_energy_per_query_j() ? fmt::format("{:.4f}", latency.energy_per_query_j()) : "-");
  }
  fmt::print("latency: by nearest rank over the timed queries (warm-up excluded); a query is one batch\n");
}

}  // namespace

void print_sweep_summary(const std::vector<proto::RunResult>& results) {
  std::vector<const proto::RunResult*> training, inference;
  for (const auto& result : results) (is_inference(result) ? inference : training).push_back(&result);
  if (!training.empty()) print_training(training);
  if (!inference.empty()) print_inference(inference);
}

}  // namespace jetchar::cli
