// `jetchar report`: one self-contained HTML file (Chart.js and the data inlined, works offline) with
// the plots such a study shows — time vs energy per power mode with the Pareto front, stall vs
// compute per worker count and medium, power over time with phase markers, predicted vs measured,
// every power mode an adaptive_profile sweep predicted with its interval and the predicted Pareto
// front over them, latency distribution, inference latency/throughput/energy against batch ×
// sequence length (analysis/report_inference.h), training's time, stall and energy per sample against
// batch size (analysis/report_batch.h) — and the tables behind them. Sections without data are left
// out. It opens with what to pick per workload (least energy, least time, and the least energy
// within the budgets given); over the results of several board kinds, a comparison page follows.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "analysis/energy_source.h"
#include "analysis/mode_predictions.h"
#include "analysis/phase_steps.h"
#include "analysis/power_trace.h"
#include "analysis/predictor.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

/// The budgets of `jetchar report --max-time/--max-latency/--max-power`: "What to pick" names, per
/// workload, the least-energy configuration that meets every budget that judges it (analysis::choose
/// per group, as `analyze choose`), or says that none does and which comes closest.
struct ReportBudgets {
  std::optional<double> max_time_s;     ///< epoch time; judges training configurations
  std::optional<double> max_latency_s;  ///< the query latency (p99); judges inference configurations
  std::optional<double> max_power_w;    ///< average power; judges both

  bool any() const { return max_time_s || max_latency_s || max_power_w; }
};

struct ReportOptions {
  std::string title = "jetchar report";
  std::string source;                             ///< shown in the header (the results file)
  std::optional<std::vector<TraceSample>> trace;  ///< power over time within an epoch
  std::string trace_caption;                      ///< where the trace comes from (run, data source)
  ModelKind model = ModelKind::kNnls;             ///< predictor for predicted vs measured (LOO)
  /// What an adaptive_profile sweep stored for every power mode (ResultsStoreReader::mode_predictions):
  /// the predicted-modes page with its predicted Pareto front; none: no such page.
  std::vector<StoredModePrediction> mode_predictions;
  /// The modes such sweeps with an objective chose (ResultsStoreReader::mode_choices): a sentence on
  /// that page, the one `jetchar analyze predictions` prints.
  std::vector<StoredModeChoice> mode_choices;
  /// Each phase's loss per optimizer step of the phased runs (ResultsStoreReader::phase_steps): the
  /// pretraining-phases page draws the loss over the steps; without: over the epochs.
  std::vector<PhaseStepLosses> phase_steps;
  ReportBudgets budgets;
  /// The records come from several results (`jetchar report A B ...`). When they name two or more
  /// board kinds (board_kind_of), each run's kind becomes its axis "board" (one front and one pick
  /// per kind, as in a merged fleet) and a comparison page follows "What to pick": the same
  /// figures as `analyze compare` (analysis/board_comparison.h).
  bool several_results = false;
  /// The kind the comparison is against (as `analyze compare --baseline`); unset: the first by name.
  std::optional<std::string> baseline;
  /// The energy every page judges runs by (analysis/energy_source.h): the boards' own sensors, or
  /// the external meter each run configured; the header says which, per board kind.
  EnergySource energy = EnergySource::kBoard;
};

/// The data behind every chart, as the page embeds it (also useful to test what a report shows).
nlohmann::json report_data(const std::vector<RunRecord>& records, const ReportOptions& options);

/// The whole HTML document.
std::string render_report(const std::vector<RunRecord>& records, const ReportOptions& options);

}  // namespace jetchar::analysis
