// A list of power modes to predict for (`jetchar analyze predict --modes FILE`): CSV with the mode
// columns of the results layout — mode (optional name), cpu_cores, cpu_freq_{hz,khz,mhz},
// gpu_freq_{hz,khz,mhz}, emc_freq_{hz,khz,mhz}. Other columns are not allowed (a typo in a knob
// name would otherwise silently drop that knob).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/run_record.h"

namespace jetchar::analysis {

std::vector<PowerMode> parse_modes_csv(const std::string& text, const std::filesystem::path& file);
/// Throws InputError naming file, line, column and value.
std::vector<PowerMode> load_modes(const std::filesystem::path& file);

}  // namespace jetchar::analysis
