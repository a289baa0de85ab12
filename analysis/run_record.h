// analysis's own input record: one run (or one epoch of a run) of one workload in one configuration.
// Readers (CSV, JSONL, later the results store) all produce this, so the statistics, Pareto and
// prediction code never depends on where a result came from. Column names: analysis/README.md.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::analysis {

/// Mirrors proto/run_result.proto RunStatus: a failed run is a result, not a missing row.
enum class RunStatus { kOk, kOom, kFailed, kInvalid, kInterrupted };

std::string_view to_string(RunStatus status);
/// "OK", "OOM", "FAILED", "INVALID", "INTERRUPTED" (any case; RUN_STATUS_UNSPECIFIED counts as INVALID); nullopt
/// otherwise.
std::optional<RunStatus> parse_run_status(std::string_view text);

/// The knobs the study's predictor uses. Frequencies are stored in kHz whatever unit the input
/// used (cpufreq reports kHz, devfreq and the EMC clock Hz).
struct PowerMode {
  std::string name;  ///< preset name ("MAXN", "15W") or "" when unnamed
  std::optional<int> cpu_cores;
  std::optional<std::int64_t> cpu_freq_khz;
  std::optional<std::int64_t> gpu_freq_khz;
  std::optional<std::int64_t> emc_freq_khz;

  /// True when all four knobs are known (the predictors need them).
  bool has_knobs() const;
  /// The name, or the knobs when unnamed or "custom": "8c/cpu2202/gpu1300/emc3199MHz".
  std::string label() const;

  auto operator<=>(const PowerMode&) const = default;
};

/// Which latency of an inference run's queries an analysis judges it by.
enum class LatencyPercentile { kAvg, kP50, kP90, kP95, kP99, kMax };

std::string_view to_string(LatencyPercentile percentile);  ///< "avg", "p50", ..., "max"
/// "avg", "p50", "p90", "p95", "p99", "max"; nullopt otherwise.
std::optional<LatencyPercentile> parse_latency_percentile(std::string_view text);

struct LatencyMs {
  std::optional<double> avg, p50, p90, p95, p99, max;
  bool any() const { return avg || p50 || p90 || p95 || p99 || max; }
  std::optional<double> at(LatencyPercentile percentile) const;
};

struct RunRecord {
  std::string workload;
  PowerMode mode;
  /// Other swept axes (batch, workers, medium, cache, ...), as written in the input.
  std::map<std::string, std::string> axes;
  std::optional<std::string> device;  ///< board or host, for variability across devices
  std::optional<std::string> board;   ///< the board model (a store's board_model), for comparing kinds
  std::optional<std::string> sweep;   ///< the sweep that measured it (column `sweep`)
  std::optional<std::string> run_id;
  std::optional<int> repetition;
  std::optional<int> epoch;  ///< set when the row is one epoch, not a run summary

  /// What the board's energy comes from (column `energy_source`: its rails, NVML's counter), and the
  /// external meter whose energy the metrics meter_energy_j and meter_avg_power_w hold (column
  /// `meter`, "protocol:device"); analysis/energy_source.h picks one of the two.
  std::optional<std::string> energy_source;
  std::optional<std::string> meter;

  std::optional<double> epoch_time_s;
  std::optional<double> epoch_energy_j;
  std::optional<double> avg_power_w;
  std::optional<double> stall_s;
  std::optional<double> compute_s;
  LatencyMs latency;
  std::optional<double> throughput_samples_per_s;
  std::optional<std::int64_t> samples;  ///< the epoch's samples (column `samples`)
  /// Other numeric measurement columns (names with a unit suffix), kept for reports.
  std::map<std::string, double> metrics;
  RunStatus status = RunStatus::kOk;
  /// From a simulated board (column `simulated`): its power, and its times where paced, are a
  /// model's, which every page that shows them says.
  bool simulated = false;

  std::string source;  ///< "file:line", for messages

  /// Average power: the measured one, else energy / time; nullopt when neither is known.
  std::optional<double> power_w() const;
};

/// What identifies a configuration: workload, power mode and the other axes (not epoch,
/// repetition or device, which are the samples of one configuration).
struct ConfigKey {
  std::string workload;
  PowerMode mode;
  std::map<std::string, std::string> axes;

  auto operator<=>(const ConfigKey&) const = default;
  /// "resnet18 | MAXN | batch=16 workers=2".
  std::string label() const;
  /// The axes only: "batch=16 workers=2" ("" when none).
  std::string axes_label() const;
};

ConfigKey config_key(const RunRecord& record);

}  // namespace jetchar::analysis
