// `jetchar report`: one self-contained HTML file (Chart.js and the data inlined, works offline) with
// the plots such a study shows — time vs energy per power mode with the Pareto front, stall vs
// compute per worker count and medium, power over time with phase markers, predicted vs measured,
// every power mode an adaptive_profile sweep predicted with its interval and the predicted Pareto
// front over them, latency distribution — and the tables behind them. Sections without data are
// left out.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "analysis/mode_predictions.h"
#include "analysis/power_trace.h"
#include "analysis/predictor.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

struct ReportOptions {
  std::string title = "jetchar report";
  std::string source;                             ///< shown in the header (the results file)
  std::optional<std::vector<TraceSample>> trace;  ///< power over time within an epoch
  std::string trace_caption;                      ///< where the trace comes from (run, data source)
  ModelKind model = ModelKind::kNnls;             ///< predictor for predicted vs measured (LOO)
  /// What an adaptive_profile sweep stored for every power mode (ResultsStoreReader::mode_predictions):
  /// the predicted-modes page with its predicted Pareto front; none: no such page.
  std::vector<StoredModePrediction> mode_predictions;
};

/// The data behind every chart, as the page embeds it (also useful to test what a report shows).
nlohmann::json report_data(const std::vector<RunRecord>& records, const ReportOptions& options);

/// The whole HTML document.
std::string render_report(const std::vector<RunRecord>& records, const ReportOptions& options);

}  // namespace jetchar::analysis
