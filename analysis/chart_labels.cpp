#include "analysis/chart_labels.h"

#include <fmt/format.h>

#include <set>

#include "analysis/config_groups.h"

namespace jetchar::analysis {
namespace {

// Longer names are a custom mode's description ("custom: 4 cores CPU/GPU/EMC 1728/306/3199 MHz
// DVFS off"), which would cover the chart.
constexpr std::size_t kLongestName = 20;

bool named_preset(const PowerMode& mode) {
  return !mode.name.empty() && !mode.name.starts_with("custom") && mode.name.size() <= kLongestName;
}

std::string mhz(std::int64_t khz) { return fmt::format("{:g}", static_cast<double>(khz) / 1e3); }

// The knobs of `mode` that differ among `modes`: "4 cores GPU 918 MHz"; all four when none does.
std::string knobs_label(const PowerMode& mode, const std::set<PowerMode>& modes) {
  const auto differs = [&](auto field) {
    for (const PowerMode& m : modes) {
      if (m.*field != mode.*field) return true;
    }
    return false;
  };
  const bool any = differs(&PowerMode::cpu_cores) || differs(&PowerMode::cpu_freq_khz) ||
                   differs(&PowerMode::gpu_freq_khz) || differs(&PowerMode::emc_freq_khz);
  std::vector<std::string> parts;
  if (mode.cpu_cores && (!any || differs(&PowerMode::cpu_cores)))
    parts.push_back(fmt::format("{} cores", *mode.cpu_cores));
  std::vector<std::string> clocks;
  const auto clock = [&](const char* name, const std::optional<std::int64_t>& khz, auto field) {
    if (khz && (!any || differs(field))) clocks.push_back(fmt::format("{} {}", name, mhz(*khz)));
  };
  clock("CPU", mode.cpu_freq_khz, &PowerMode::cpu_freq_khz);
  clock("GPU", mode.gpu_freq_khz, &PowerMode::gpu_freq_khz);
  clock("EMC", mode.emc_freq_khz, &PowerMode::emc_freq_khz);
  if (!clocks.empty()) parts.push_back(fmt::format("{} MHz", fmt::join(clocks, " ")));
  return parts.empty() ? mode.label() : fmt::format("{}", fmt::join(parts, " "));
}

}  // namespace

std::vector<std::string> chart_labels(std::span<const ConfigKey> keys) {
  // The knobs that tell custom modes apart are judged among the custom modes: a preset names none.
  std::set<PowerMode> modes, custom;
  for (const ConfigKey& k : keys) {
    modes.insert(k.mode);
    if (!named_preset(k.mode)) custom.insert(k.mode);
  }
  const auto shown = varying_axes(keys);
  std::vector<std::string> labels;
  for (const ConfigKey& k : keys) {
    const std::string axes = axes_label(k, shown);
    std::string mode;
    if (modes.size() > 1 || axes.empty()) mode = named_preset(k.mode) ? k.mode.name : knobs_label(k.mode, custom);
    labels.push_back(mode.empty() ? axes : axes.empty() ? mode : mode + " " + axes);
  }
  return labels;
}

}  // namespace jetchar::analysis
