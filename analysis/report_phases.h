// The report's pretraining-phases page: each phased run (workload.phases, `train --phase`) with its
// loss over the optimizer steps, one line per phase, the steps numbered on through the run (phase 2
// goes on where phase 1 ended), and each phase's sequences per second; then the throughput of every
// phase per precision and world size (data-parallel ranks), the two settings a pretraining
// study compares. A store keeps each step's loss (table phase_steps); an export does not, and a
// run without them shows its loss per epoch instead.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/phase_steps.h"
#include "analysis/report_html.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

/// The most points a phase's loss line holds: a longer phase is shown as the mean loss of
/// consecutive steps, each point the mean of as many steps as it takes to stay within this.
inline constexpr std::size_t kMaxLossPointsPerPhase = 1000;

/// {"runs": one per phased run (its epochs carry metric "phase"): its label, "loss_over" ("step"
/// or "epoch"), "points" ({x, phase, loss}) and "phases" (each phase's epochs, steps, samples,
/// time, sequences/s and final loss); "throughput": rows of each configuration (its label without
/// the phases, precision, world size) and phase with the median sequences/s over its runs}. Empty
/// runs when no run was phased.
nlohmann::json phases_section(const std::vector<RunRecord>& records, const std::vector<PhaseStepLosses>& steps);

/// The page's HTML ("" without phased runs).
std::string phases_html(const nlohmann::json& section, report_html::ChartCanvases& canvases);

}  // namespace jetchar::analysis
