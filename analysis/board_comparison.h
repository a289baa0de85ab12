// One workload configuration on several kinds of board side by side (`jetchar analyze compare`): a
// Jetson against a desktop GPU, two Jetsons, or one board on two software versions. Each kind is
// taken at its own best power mode; the figures are relative to a baseline kind.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

/// A record's board kind: the board model the store records (RunRecord::board), else its device
/// (an export's `device` column is the board model).
std::string board_kind_of(const RunRecord& record);

/// One kind's figures for one configuration: at its fastest mode and at its least-energy mode.
struct KindFigures {
  std::string kind;
  ConfigPoint fastest;       ///< the mode with the least time (epoch time, or query latency)
  ConfigPoint least_energy;  ///< the mode with the least energy (unset energy: as fastest)
  std::size_t modes = 0;     ///< power modes measured on this kind
  /// Against the baseline's fastest mode: baseline time / this time (> 1: faster).
  double speedup = 1;
  /// Against the baseline's least-energy mode: this energy / baseline energy (< 1: less energy per
  /// epoch or query, and so per sample, the settings being the same); nullopt without energy.
  std::optional<double> energy_ratio;
  /// Performance per watt against the baseline's, at the least-energy modes (1 / energy_ratio).
  std::optional<double> perf_per_watt_ratio;
};

struct BoardComparison {
  ConfigKey key;                   ///< the configuration: workload and settings; its mode is empty
  std::vector<KindFigures> kinds;  ///< the baseline first, then by kind
};

struct ComparisonOptions {
  std::optional<std::string> baseline;  ///< the kind the others are measured against; unset = the first by name
  AggregateOptions aggregate;
};

/// Every configuration measured on two or more kinds. A configuration is the workload and its
/// settings except the power mode, the board and the LibTorch thread count (each board resolves
/// it to its own cores). Throws std::invalid_argument when the baseline kind measured nothing,
/// naming the kinds there are.
std::vector<BoardComparison> compare_boards(const std::vector<RunRecord>& records, const ComparisonOptions& options);

}  // namespace jetchar::analysis
