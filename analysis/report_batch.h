// The report's batch-size page for training: where a sweep varied the batch, the time, fetch stall
// and energy each sample costs at each batch size, per workload and power mode (and value of every
// other axis), in charts, a table and a sentence naming the batch with the least time and the one
// with the least energy per sample. Per sample, because an epoch of a larger batch is not more
// work: dividing by the epoch's samples puts every batch size on one scale.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/report_html.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

/// One group per training configuration (without its batch) measured at two or more batch sizes
/// whose epochs record their samples; each row one batch size: medians over warm epochs (epoch 0
/// only where a configuration has no other, as aggregate() takes them) of each epoch's time, fetch
/// stall and energy over its samples. Empty when no sweep varied the batch.
nlohmann::json batch_section(const std::vector<RunRecord>& records);

/// The page's HTML ("" without groups).
std::string batch_html(const nlohmann::json& section, report_html::ChartCanvases& canvases);

}  // namespace jetchar::analysis
