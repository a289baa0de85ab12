// Short names for the configurations drawn on one chart, to print beside their points: the chart
// is one workload's, so only what tells its points apart is worth the room.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "analysis/run_record.h"

namespace jetchar::analysis {

/// One label per key, in order: the power mode (a preset's name such as "MAXN" or "30W"; for a
/// custom or unnamed mode the knobs that differ among `keys`, "4 cores GPU 918 MHz") followed by
/// the axes that differ ("batch=8"). A mode that is the same on every key is left out when the
/// axes tell the keys apart.
std::vector<std::string> chart_labels(std::span<const ConfigKey> keys);

}  // namespace jetchar::analysis
