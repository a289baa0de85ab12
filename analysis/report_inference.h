// The report's inference page: for each inference workload (records without epochs, with query
// latencies), per power mode, the latency percentiles (p50, p90, p99), throughput and energy per
// query and per sample against batch size × sequence length, in charts, a table, and one sentence
// per workload that names the configuration with the most throughput, the one with the lowest p99
// latency and the one with the least energy per sample.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/report_html.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

/// {"workloads": [...], "groups": [...]} from aggregate()'s points (those with query_latency) and
/// the records behind them (for the energy per sample each run stored). A group is one workload in
/// one power mode (and one value of every other varying axis); its rows are its batch ×
/// sequence-length configurations, its x axis the batch size (or the sequence length when the batch
/// does not vary), its series the other of the two. Where every power mode of a workload ran one
/// configuration (a sweep of modes at one batch), one group holds them all with the power modes
/// along x (x_axis "mode"). Empty arrays without inference runs.
nlohmann::json inference_section(const std::vector<ConfigPoint>& points, const std::vector<RunRecord>& records);

/// The page's HTML ("" without groups).
std::string inference_html(const nlohmann::json& section, report_html::ChartCanvases& canvases);

}  // namespace jetchar::analysis
