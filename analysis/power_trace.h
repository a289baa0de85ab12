// A power trace within an epoch, for the report's power-over-time plot: CSV with columns
// t_s (seconds from any origin, non-decreasing), power_w, and an optional marker (a phase name
// such as "epoch_start", "fetch", "compute", written on the sample where the phase begins).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace jetchar::analysis {

struct TraceSample {
  double t_s = 0;
  double power_w = 0;
  std::optional<std::string> marker;
};

/// Throws InputError naming file, line, column and value (missing column, not a number, time going
/// backwards, negative power).
std::vector<TraceSample> parse_power_trace(const std::string& text, const std::filesystem::path& file);
std::vector<TraceSample> load_power_trace(const std::filesystem::path& file);

}  // namespace jetchar::analysis
